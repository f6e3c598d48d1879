/** The `prune-result` code provider: `extract@1` → `prune_result@1` from the prune_archive tool's report. */
import { singleSchema } from '../lib/single-schema.js';
import { parsePrune } from './parse.js';

export { parsePrune, type PruneResult, type PrunedFile } from './parse.js';
export const pruneResultProvider = singleSchema('prune-result', 'prune_result@1', parsePrune);
