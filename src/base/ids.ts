/**
 * The few names that job files, manifests and ledger events share: budget
 * classes, capability ids and schema ids. They live apart from the event
 * vocabulary and the manifest schemas so that a reader of job files — the
 * daemon's intake, which must stay small — needs only these.
 */
import { z } from 'zod';

export const BUDGET_CLASSES = ['interactive', 'attended', 'background', 'batch'] as const;
export const budgetClassSchema = z.enum(BUDGET_CLASSES);
export type BudgetClass = z.infer<typeof budgetClassSchema>;

export const capabilityId = z.string().regex(/^[a-z][a-z0-9_]*@[0-9]+$/, 'name@version, e.g. extract@1');
export const schemaId = z.string().regex(/^[a-z][a-z0-9_]*@[0-9]+$/, 'name@version, e.g. log_summary@2');
