/**
 * A ledger line as a box ships it, checked by whoever reads it: the hub before
 * it appends the line to its copy, `pico fleet watch` before it prints it.
 *
 * A box is a sender the reader does not own: anything it publishes on its own
 * subject arrives. The hub's copy must stay a ledger (design §2: one JSON
 * object per line, `seq` dense from 0, every event of its session), or its
 * next open, and every one after, stops at the damage. So a message is taken
 * only when it is exactly one line of strict UTF-8 holding one JSON object
 * with a string `type`, a string `t`, a whole `seq` from 0 and the
 * `session_id` of the subject it came on. The reading is otherwise loose (an
 * event type this version does not know is kept), as memory reads ledgers.
 * The order — the next seq, a second copy, an early line — is the reader's:
 * the hub's store keeps it in its file, a watch in `InOrder`.
 */
import { decodeUtf8Strict } from '../base/utf8.js';
import { isSessionId } from '../ledger/session-id.js';

/** A checked line: its text (appended as it came) and the fields readers act on. */
export interface ShippedLine {
  text: string;
  seq: number;
  type: string;
  event: Record<string, unknown>;
}

/** Largest line accepted, in bytes (the server's own default message cap). */
const MAX_LINE_BYTES = 1024 * 1024;

/** The line a message holds, or what is wrong with it (in words; never a quote of the message). */
export function checkShippedLine(data: Uint8Array, session: string): ShippedLine | { problem: string } {
  if (!isSessionId(session)) return { problem: 'its subject names no session id' };
  if (data.length === 0) return { problem: 'it is empty' };
  if (data.length > MAX_LINE_BYTES) return { problem: `it is ${data.length} bytes, over the ${MAX_LINE_BYTES}-byte limit of a line` };
  const d = decodeUtf8Strict(data);
  if ('problem' in d) return { problem: `it is not UTF-8 (${d.problem})` };
  if (/[\r\n]/.test(d.text)) return { problem: 'it spreads over more than one line (a ledger line is one line)' };
  let v: unknown;
  try {
    v = JSON.parse(d.text);
  } catch {
    return { problem: 'it is not JSON' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { problem: 'it is not a JSON object' };
  const e = v as Record<string, unknown>;
  if (typeof e.type !== 'string' || e.type === '') return { problem: 'it has no event type' };
  if (!Number.isSafeInteger(e.seq) || (e.seq as number) < 0) return { problem: 'it has no seq (a whole number from 0)' };
  if (typeof e.t !== 'string') return { problem: 'it has no time t' };
  if (e.session_id !== session) return { problem: `its session_id is not ${session}, the session of the subject it came on` };
  return { text: d.text, seq: e.seq as number, type: e.type, event: e };
}

/**
 * Lines of one session put back in seq order from 0: a second copy of a seq is dropped, a line
 * that came before the one it follows is held until that one arrives.
 */
export class InOrder<T> {
  private next = 0;
  private readonly early = new Map<number, T>();

  constructor(private readonly maxAhead = 10_000) {}

  /** Offer the item of `seq`; the items now in order (none when it is early or a second copy; one too far ahead is dropped). */
  offer(seq: number, item: T): T[] {
    if (seq < this.next || seq - this.next > this.maxAhead || this.early.has(seq)) return [];
    this.early.set(seq, item);
    const out: T[] = [];
    for (let x = this.early.get(this.next); x !== undefined; x = this.early.get(this.next)) {
      this.early.delete(this.next++);
      out.push(x);
    }
    return out;
  }
}
