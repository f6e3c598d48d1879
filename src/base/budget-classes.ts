/**
 * The four budget classes, as plain words: what the daemon's queue and status
 * need to order and count jobs, without the zod schemas of ids.ts (which the
 * idle daemon does not load; src/daemon/job-quick.ts says why).
 */
export const BUDGET_CLASSES = ['interactive', 'attended', 'background', 'batch'] as const;
export type BudgetClass = (typeof BUDGET_CLASSES)[number];
