/**
 * The `pressure` code provider: `extract@1` → `pressure@1` from the pressure
 * tool's capture of /proc/pressure. Pure.
 */
import { singleSchema } from '../lib/single-schema.js';
import { parsePressure } from './parse.js';

export { parsePressure, STALLED_PERCENT, type Pressure, type Resource, type ResourceName, type Window } from './parse.js';

export const pressureProvider = singleSchema('pressure', 'pressure@1', parsePressure);
