/**
 * The `throttling` code provider: `extract@1` → `throttling@1` from the
 * throttling tool's capture (get_throttled, vcgencmd, cpufreq). Pure.
 */
import { singleSchema } from '../lib/single-schema.js';
import { parseThrottling } from './parse.js';

export { parseThrottling, bitWords, WORDS, type Throttling, type Word } from './parse.js';

export const throttlingProvider = singleSchema('throttling', 'throttling@1', parseThrottling);
