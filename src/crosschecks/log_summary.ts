/**
 * The log_summary@2 cross-check (ladder level 4): recount the failure lines.
 *
 * Rule 1 of the spec is a regular expression, so code can recount it and the
 * recount wins over what a provider said. Three things are deliberately not
 * judged here: a null count (abstention is never cross-checked), lines that
 * only rule 2 (a priority of 3 or less) decided — the provider may or may not
 * have counted them, so they widen the accepted range — and windows where the
 * fallback ("an operation did not succeed") decides, which is judgement, not
 * a regex. The span rule for extractive fields lives in `spans.ts`, not here.
 */
import type { CrossCheck } from '../ladder/types.js';
import { hasCollectorNotice, isRule1FailureLine, isRule2FailureLine, windowLines } from '../../providers/log-summary/index.js';
import { lineSeverity } from '../../providers/log-summary/rules.js';

const RULE1_WORDS = 'emerg emergency alert crit critical panic fatal err error errors fail failed failure failures';

/** Check `error_count` against a recount of the window; an error message, or null when it holds. */
export const logSummaryCrossCheck: CrossCheck = (value, source) => {
  if (typeof value !== 'object' || value === null || !('error_count' in value)) {
    return 'log_summary@2 cross-check: the value has no "error_count" field; it must be an object with all seven log_summary@2 fields';
  }
  const count = (value as { error_count: unknown }).error_count;
  if (count === null) return null;
  if (typeof count !== 'number') return `log_summary@2 cross-check: "error_count" is ${JSON.stringify(count)}; it must be an integer or null`;
  if (hasCollectorNotice(source)) {
    return `error_count is ${count} but the window says some of its lines were not returned, so the count cannot be derived; error_count must be null there`;
  }
  const lines = windowLines(source);
  const rule1 = lines.filter(isRule1FailureLine).length;
  const rule2Only = lines.filter((l) => !isRule1FailureLine(l) && isRule2FailureLine(l)).length;
  if (rule1 === 0 && rule2Only === 0) {
    const statesSeverity = lines.some((l) => lineSeverity(l) !== null);
    if (!statesSeverity) return null; // the fallback decides, which no regex can recount
    if (count === 0) return null;
    return `error_count is ${count} but no line contains a failure word (${RULE1_WORDS}) or starts with a priority of severity 3 or less, and the window states a severity, so the count must be 0`;
  }
  if (count >= rule1 && count <= rule1 + rule2Only) return null;
  const range = rule2Only > 0 ? ` (${rule1 + rule2Only} counting the ${rule2Only} line(s) that only a <priority> marks as a failure)` : '';
  return `error_count is ${count} but a recount finds ${rule1} line(s) containing a failure word as a whole word${range}; count LINES, once each, that contain one of: ${RULE1_WORDS}`;
};
