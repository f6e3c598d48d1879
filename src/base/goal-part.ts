/**
 * The record of one part of a goal (seam §1), as plan_created carries it: the agent's goal reader
 * writes it, the ledger keeps it, the answer renderer and follow-ups read it. It lives here, below
 * all three, as a tool's plain causes do (tool-cause.ts): the vocabulary of what a part asks is the
 * agent's, and the ledger only holds it. Shape only.
 */
import { z } from './zod.js';

/** What a part asks of the facts, and the kinds of things a selection asks for (src/agent/goal/ask.ts reads them from words). */
export const ASK_KINDS = ['state', 'list', 'count', 'member', 'show', 'why'] as const;
export const ASK_NOUNS = ['process', 'unit', 'package', 'file', 'folder', 'filesystem', 'interface', 'line', 'error', 'boot'] as const;

/**
 * One part as the agent read it (design §12), in order: its words, the steps planned for it, what
 * retrieval ranked and which playbooks fit it, the time window it names in words, and — for a part
 * no step serves — why, in plain words, and what can be checked instead.
 */
export const goalPartSchema = z.strictObject({
  text: z.string(),
  steps: z.array(z.string()),
  retrieved: z.array(z.strictObject({ name: z.string(), score: z.number() })),
  playbooks: z.array(z.string()),
  window: z.string().optional(),
  unchecked: z.string().optional(),
  offers: z.array(z.string()).optional(),
  /** seam §1: what the part asks about, the words that selected its plan, who planned it */
  subject: z.string().optional(),
  matched: z.array(z.string()).optional(),
  source: z.enum(['playbook', 'retrieval', 'model']).optional(),
  /** seam §1: what the part asks of the facts (absent: the subject's state) */
  ask: z.strictObject({
    kind: z.enum(ASK_KINDS),
    name: z.string().optional(),
    noun: z.enum(ASK_NOUNS).optional(),
  }).optional(),
  /** seam §1: a request to change something; a part with it is never answered by a read */
  act: z.strictObject({ verb: z.string(), object: z.string().nullable() }).optional(),
});
