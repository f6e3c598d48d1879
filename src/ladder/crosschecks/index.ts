/**
 * Per-schema deterministic cross-checks (ladder level 4, beside the span rule).
 * One entry per schema id; a schema without an entry has only the span rule.
 */
import type { CrossCheck } from '../types.js';
import { logSummaryCrossCheck } from './log_summary.js';

export const crossChecks: Record<string, CrossCheck> = {
  'log_summary@2': logSummaryCrossCheck,
};
