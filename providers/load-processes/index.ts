/** The `load-processes` code provider: `extract@1` → `load_processes@1` from a load_top capture. */
import { singleSchema } from '../lib/single-schema.js';
import { parseLoadTop } from './parse.js';

export { parseLoadTop, type LoadProcesses, type ProcessRow } from './parse.js';
export const loadProcessesProvider = singleSchema('load-processes', 'load_processes@1', parseLoadTop);
