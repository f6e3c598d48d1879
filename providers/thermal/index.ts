/** The `thermal` code provider: `extract@1` → `thermal@1` from the thermal tool's capture. */
import { singleSchema } from '../lib/single-schema.js';
import { parseThermal } from './parse.js';

export { parseThermal, HOT_CELSIUS, WARM_CELSIUS, type Thermal, type Zone } from './parse.js';
export const thermalProvider = singleSchema('thermal', 'thermal@1', parseThermal);
