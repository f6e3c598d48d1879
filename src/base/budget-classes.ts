/**
 * The four budget classes, as plain words: what the daemon's queue and status
 * need to order and count jobs, and what ids.ts's zod schema is made of.
 */
export const BUDGET_CLASSES = ['interactive', 'attended', 'background', 'batch'] as const;
export type BudgetClass = (typeof BUDGET_CLASSES)[number];
