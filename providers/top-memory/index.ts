/**
 * The `top-memory` code provider: `extract@1` → `memory_holders@1` from the
 * top_memory tool's capture (ps by RSS). Pure.
 */
import { singleSchema } from '../lib/single-schema.js';
import { parseTopMemory } from './parse.js';

export { parseTopMemory, MAX_PROCESSES, MAX_PROGRAMS, type MemoryHolders, type Holder, type Program } from './parse.js';

export const topMemoryProvider = singleSchema('top-memory', 'memory_holders@1', parseTopMemory);
