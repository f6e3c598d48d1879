/**
 * The few names that job files, manifests and ledger events share: budget
 * classes, capability ids and schema ids. They live apart from the event
 * vocabulary and the manifest schemas so that a reader of job files — the
 * daemon's intake, which must stay small — needs only these.
 */
import { z } from './zod.js';
import { BUDGET_CLASSES, type BudgetClass } from './budget-classes.js';

export { BUDGET_CLASSES, type BudgetClass };
export const budgetClassSchema = z.enum(BUDGET_CLASSES);

export const capabilityId = z.string().regex(/^[a-z][a-z0-9_]*@[0-9]+$/, 'name@version, e.g. extract@1');
export const schemaId = z.string().regex(/^[a-z][a-z0-9_]*@[0-9]+$/, 'name@version, e.g. log_summary@2');
