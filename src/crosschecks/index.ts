/**
 * Per-schema deterministic cross-checks (ladder level 4, beside the span rule).
 * One entry per schema id; a schema without an entry has only the span rule.
 *
 * The ladder owns the table (src/ladder/crosschecks.ts, the seam) and level 4
 * reads it; the checks live here, above providers/ whose rules they recount,
 * and loading this module puts them in the table. `crossChecks` is that one
 * table, so an entry added here or by a caller is the one level 4 runs.
 */
import { crossChecks } from '../ladder/crosschecks.js';
import { logSummaryCrossCheck } from './log_summary.js';

crossChecks['log_summary@2'] = logSummaryCrossCheck;

export { crossChecks };
