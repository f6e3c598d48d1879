/**
 * The `unit-log` code provider: `extract@1` → `unit_log@1` from the unit_log
 * tool's capture (a unit's state and its last journal lines). Pure.
 */
import { singleSchema } from '../lib/single-schema.js';
import { parseUnitLog } from './parse.js';

export { parseUnitLog, MAX_LINES, type UnitLog, type LogLine } from './parse.js';

export const unitLogProvider = singleSchema('unit-log', 'unit_log@1', parseUnitLog);
