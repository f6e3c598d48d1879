/**
 * The `systemd-units` code provider: `extract@1` → `unit_status@1` from
 * `systemctl show` and → `failed_units@1` from `systemctl --failed`. Both are
 * systemd's own view of its units, so one provider owns both readings.
 */
import type { CodeProvider } from '../types.js';
import { parseFailedUnits } from './failed.js';
import { parseUnitShow } from './show.js';

export { parseFailedUnits, type FailedUnits, type FailedUnit } from './failed.js';
export { parseUnitShow, type UnitStatus } from './show.js';

export const systemdUnitsProvider: CodeProvider = ({ text, schemaId }) => {
  if (schemaId === 'unit_status@1') return parseUnitShow(text);
  if (schemaId === 'failed_units@1') return parseFailedUnits(text);
  throw new Error(`systemd-units provider: asked for schema "${schemaId}" but it only produces unit_status@1 and failed_units@1; fix the manifest's "schemas" or the job step`);
};
