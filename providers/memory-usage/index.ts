/** The `memory-usage` code provider: `extract@1` → `memory_usage@1` from a /proc/meminfo capture. */
import { singleSchema } from '../lib/single-schema.js';
import { parseMeminfo } from './parse.js';

export { parseMeminfo, memoryState, type MemoryUsage } from './parse.js';
export const memoryUsageProvider = singleSchema('memory-usage', 'memory_usage@1', parseMeminfo);
