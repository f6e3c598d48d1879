/**
 * The `log-summary` code provider: `extract@1` → `log_summary@2`.
 *
 * A pure function of the text it is shown (design P1): no I/O, no state, no
 * clock. It refuses a schema it does not produce instead of guessing, so a
 * miswired manifest fails loudly at the first call.
 */
import type { CodeProvider } from '../types.js';
import { summarizeLog } from './summarize.js';

export { summarizeLog, windowLines, hasCollectorNotice, type LogSummary } from './summarize.js';
export { isRule1FailureLine, isRule2FailureLine } from '../../src/agent/failure-lines.js';

/** Summarise the input window; only `log_summary@2` is produced. */
export const logSummaryProvider: CodeProvider = ({ text, schemaId }) => {
  if (schemaId !== 'log_summary@2') {
    throw new Error(`log-summary provider: asked for schema "${schemaId}" but it only produces log_summary@2; fix the manifest's "schemas" or the job step`);
  }
  return summarizeLog(text);
};
