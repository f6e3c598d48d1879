/**
 * The `log-lines` code provider: `extract@1` → `log_lines@1`, a log window
 * as its lines with the level each one states by structure (read.ts). A
 * pure function of the text it is shown; any other schema is refused.
 */
import { singleSchema } from '../lib/single-schema.js';
import { readLogLines } from './read.js';

export { readLogLines, logEntries, MAX_LINES, MAX_FAILURES, type LogLines, type ShownLine } from './read.js';
export { LEVELS, isFailure, type Level } from './levels.js';
export type { Entry } from './journal.js';

export const logLinesProvider = singleSchema('log-lines', 'log_lines@1', readLogLines);
