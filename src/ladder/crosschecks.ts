/**
 * The seam for per-schema deterministic cross-checks (ladder level 4, beside
 * the span rule): one table, schema id -> check, that level 4 consults. A
 * schema without an entry has only the span rule.
 *
 * The ladder ships the table empty: the checks recount by a provider's own
 * rules (providers/), which sit above the core, so they live in
 * src/crosschecks/, and loading that module fills this table. Whoever runs
 * the ladder on a provider's input loads it (src/root/ for every session,
 * counterfactual replay, `pico ladder --source`).
 */
import type { CrossCheck } from './types.js';

export const crossChecks: Record<string, CrossCheck> = {};
