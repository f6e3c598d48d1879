/**
 * The fleet's names on the NATS server — the one owner of every stream,
 * subject, bucket and consumer name, so the agent, the hub and the user's
 * commands cannot disagree about them.
 *
 *   stream PICO_EV     pico.ev.<box>.<session>   one ledger line per message, id `<session>:<seq>`
 *   stream PICO_JOBS   pico.job.box.<box> | pico.job.model.<id> | pico.job.cap.<capability>
 *                      a work queue: each job is delivered to one consumer, removed on ack
 *   bucket pico_boxes         heartbeat per box (models, capabilities, queue, lag, last seen)
 *   bucket pico_compositions  composition documents keyed by their hash (written once)
 *   bucket pico_claims        job id -> the box that took it (created once: compare-and-set)
 *
 * A NATS subject token may not hold `.`, `*`, `>` or blanks, and a provider id
 * or capability may hold a dot, so selector values are encoded into tokens
 * (`token()`); box names are restricted instead, since they name folders on
 * the hub too. This module talks to no server.
 */
export const EVENTS_STREAM = 'PICO_EV';
export const JOBS_STREAM = 'PICO_JOBS';
export const BOXES_BUCKET = 'pico_boxes';
export const COMPOSITIONS_BUCKET = 'pico_compositions';
export const CLAIMS_BUCKET = 'pico_claims';
export const HUB_CONSUMER = 'pico_hub';

/** Default publish dedup window of both streams (the server's own default). */
export const DEFAULT_DEDUP_MS = 120_000;

/** A box name: a folder on the hub and a subject token, so letters, digits, `_` and `-` only. */
export const BOX_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

/** What a box name must look like, for error messages. */
export const BOX_RULE = '1-63 letters, digits, "_" or "-", starting with a letter or digit';

/** Encode any selector value as one subject token (and durable-name part): unsafe characters become ~XX. */
export function token(value: string): string {
  return value.replace(/[^A-Za-z0-9_@-]/g, (c) => `~${c.codePointAt(0)!.toString(16).padStart(2, '0')}`);
}

/** The kinds of routing a job can ask for. */
export const SELECTOR_KINDS = ['box', 'model', 'cap'] as const;
export type SelectorKind = (typeof SELECTOR_KINDS)[number];
export interface Selector {
  kind: SelectorKind;
  value: string;
}

/** The subject a job for `sel` is published under. */
export function jobSubject(sel: Selector): string {
  return `pico.job.${sel.kind}.${token(sel.value)}`;
}

/** The durable consumer that serves `sel`'s subject (shared by every box that can serve it). */
export function jobConsumer(sel: Selector): string {
  return `job_${sel.kind}_${token(sel.value)}`;
}

/** The subject one box's ledger line of `session` is published under. */
export function eventSubject(box: string, session: string): string {
  return `pico.ev.${box}.${session}`;
}

/** Box and session of an event subject, or null when it is not one. */
export function parseEventSubject(subject: string): { box: string; session: string } | null {
  const parts = subject.split('.');
  if (parts.length !== 4 || parts[0] !== 'pico' || parts[1] !== 'ev') return null;
  return BOX_RE.test(parts[2]!) ? { box: parts[2]!, session: parts[3]! } : null;
}

/** The message id of a ledger line: publish-side dedup within the window. */
export function eventMsgId(session: string, seq: number): string {
  return `${session}:${seq}`;
}

/** A KV key for a composition hash (`sha256:abc…` -> `abc…`). */
export function compositionKey(hash: string): string {
  return hash.replace(/^sha256:/, '');
}

/** Parse `box=NAME`, `model=ID` or `cap=CAPABILITY`; null when it is none of them. */
export function parseSelector(text: string): Selector | null {
  const eq = text.indexOf('=');
  if (eq < 1) return null;
  const kind = text.slice(0, eq);
  const value = text.slice(eq + 1);
  if (!(SELECTOR_KINDS as readonly string[]).includes(kind) || value.length === 0 || value.length > 200) return null;
  if (kind === 'box' && !BOX_RE.test(value)) return null;
  return { kind: kind as SelectorKind, value };
}
