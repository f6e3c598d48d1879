/**
 * Shipping a box's ledgers to the fleet: the box's own `events.jsonl` files
 * are the offline buffer, and this only moves a read offset.
 *
 * One pass: for each session not yet done, read its ledger from the saved
 * offset to its current size, 256 kB at a time into one reused buffer, take
 * the complete lines (a torn last line waits for its writer), publish each to `pico.ev.<box>.<session>` with message id
 * `<session>:<seq>`, and advance the offset over the longest run of lines the
 * server acknowledged, saved before the next pass. A line the server did not
 * acknowledge (it is down, or the link dropped) is sent again on a later
 * pass; the server's dedup window catches a quick second copy and the hub's
 * seq check catches any later one, so each event lands once. A composition
 * document is put into its bucket once per hash, before the line that cites
 * it, so the hub can find it when the line arrives. A session whose
 * result.json exists and whose ledger is shipped to its end is done. What the
 * agent holds while it ships is bounded by the chunk and the 64 publishes in
 * flight, whatever the backlog: a week offline or one ledger of many
 * megabytes does not grow it (bench/fleet.ts measures it). A ledger and a
 * document are opened through safe-open: a symlink or a FIFO planted in a
 * session folder is never followed out of the root (nor shipped, nor waited
 * on); it is logged once and left. This
 * module takes no jobs (take.ts), reports no job's end (agent.ts) and sends
 * no heartbeat.
 */
import { closeSync, existsSync, fstatSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { openPlanted, readPlantedText, rootRules, UnsafeFileError, type RootRules } from '../base/safe-open.js';
import { COMPOSITION_FILE } from '../ledger/composition.js';
import { isSessionId } from '../ledger/session-id.js';
import { compositionKey, eventMsgId, eventSubject } from './names.js';
import { writeAgentState, type BoxContext } from './state.js';

/**
 * Bytes of a ledger read at a time: a week offline or one huge ledger costs the agent this much
 * (and the lines in it), never the ledger's size; the buffer is the shipper's one, reused.
 */
const CHUNK = 256 * 1024;
/** Lines published before their acks are awaited together: bounds what the client holds pending. */
const IN_FLIGHT = 64;

export interface ShipPass {
  sessions: number;
  lines: number;
  bytes: number;
  /** bytes present in ledgers but not yet acknowledged, after the pass */
  lagBytes: number;
  /** sessions with unshipped bytes after the pass */
  lagSessions: number;
  /** true when the server refused or did not answer: the rest waits for the next pass */
  stalled: boolean;
}

interface Line {
  text: string;
  seq: number;
  type: string;
  hash: string | null;
  /** byte offset just after this line */
  end: number;
}

/** The complete lines of `buf` (read from byte `from`); lines that are not events are passed over. */
function splitLines(buf: Buffer, from: number): { lines: Line[]; end: number } {
  const lines: Line[] = [];
  let start = 0;
  let end = from;
  for (;;) {
    const nl = buf.indexOf(0x0a, start);
    if (nl === -1) break; // a torn or unfinished last line: its writer may still finish it
    const text = buf.toString('utf8', start, nl);
    start = nl + 1;
    end = from + start;
    if (text.trim() === '') continue;
    try {
      const e = JSON.parse(text) as { seq?: unknown; type?: unknown; hash?: unknown };
      if (Number.isInteger(e.seq) && typeof e.type === 'string') {
        lines.push({ text, seq: e.seq as number, type: e.type, hash: typeof e.hash === 'string' ? e.hash : null, end });
      }
    } catch {
      // a damaged middle line has no seq to ship under; the box's own check names it
    }
  }
  return { lines, end };
}

export class Shipper {
  private readonly done: Set<string>;
  private readonly compositions: Set<string>;
  private readonly chunk = Buffer.allocUnsafe(CHUNK);

  constructor(private readonly ctx: BoxContext) {
    this.done = new Set(ctx.state.done);
    this.compositions = new Set(ctx.state.compositions);
  }

  /** One pass over every session not yet done. */
  async pass(): Promise<ShipPass> {
    const out: ShipPass = { sessions: 0, lines: 0, bytes: 0, lagBytes: 0, lagSessions: 0, stalled: false };
    const sessionsDir = join(this.ctx.root, 'sessions');
    let all: string[];
    try {
      all = readdirSync(sessionsDir).filter(isSessionId);
    } catch {
      return out; // no sessions folder yet
    }
    const names = all.filter((n) => !this.done.has(n)).sort();
    let changed = false;
    if (this.done.size > all.length) {
      // sessions removed by retention (pico gc) are forgotten here too, so the state stays small
      const present = new Set(all);
      for (const n of this.done) if (!present.has(n)) this.done.delete(n);
      this.ctx.state.done = [...this.done];
      changed = true;
    }
    for (const session of names) {
      const ledger = this.openLedger(join(sessionsDir, session, 'events.jsonl'));
      if (ledger === null) continue; // claimed, no ledger yet (or a planted one, logged)
      try {
        changed = (await this.passSession(session, ledger, out)) || changed;
      } finally {
        closeSync(ledger);
      }
    }
    if (changed) writeAgentState(this.ctx.root, this.ctx.state);
    return out;
  }

  /** The rules session files are read under: the sessions folder's own (it may be a mount of its own, a bigger disk). */
  private sessionRules(): RootRules {
    return rootRules(join(this.ctx.root, 'sessions'));
  }

  /** Files already said to be planted (a pass every half second would say it again). */
  private readonly planted = new Set<string>();

  /** A ledger opened through safe-open, or null when there is none or it is planted (logged once). */
  private openLedger(path: string): number | null {
    try {
      return openPlanted(this.sessionRules(), path, { maxBytes: Number.MAX_SAFE_INTEGER, what: 'ledger' })?.fd ?? null;
    } catch (err) {
      if (!(err instanceof UnsafeFileError)) throw err;
      if (!this.planted.has(err.file)) this.ctx.log.warn({ event: 'ledger_refused', file: err.file, reason: err.reason }, `${err.message}; it is not shipped`);
      this.planted.add(err.file);
      return null;
    }
  }

  /** Ship one open ledger from its offset; true when the agent's state changed. */
  private async passSession(session: string, fd: number, out: ShipPass): Promise<boolean> {
    const sessionsDir = join(this.ctx.root, 'sessions');
    let changed = false;
    const size = fstatSync(fd).size;
    let offset = this.ctx.state.shipped[session] ?? 0;
    if (size < offset) {
      this.ctx.log.warn({ event: 'ledger_shrank', session, offset, size }, `ledger of ${session} is shorter than what was shipped; shipping continues from its end`);
      offset = this.ctx.state.shipped[session] = size;
      changed = true;
    }
    if (!out.stalled && size > offset) {
      const shipped = await this.shipSession(session, fd, offset, size);
      if (shipped.end > offset) {
        this.ctx.state.shipped[session] = shipped.end;
        changed = true;
        out.sessions++;
        out.lines += shipped.lines;
        out.bytes += shipped.end - offset;
        offset = shipped.end;
      }
      if (shipped.stalled) out.stalled = true;
    }
    if (size > offset) {
      out.lagBytes += size - offset;
      out.lagSessions++;
    } else if (existsSync(join(sessionsDir, session, 'result.json')) && fstatSync(fd).size === offset) {
      this.done.add(session);
      this.ctx.state.done.push(session);
      delete this.ctx.state.shipped[session];
      changed = true;
    }
    return changed;
  }

  /**
   * Publish the complete lines of [offset, size), a chunk at a time; the end of the acknowledged run
   * and whether it stopped early. Lines that are not events (passed over) move the offset too, once
   * every event before them is acknowledged.
   */
  private async shipSession(session: string, fd: number, offset: number, size: number): Promise<{ end: number; lines: number; stalled: boolean }> {
    let end = offset;
    let count = 0;
    while (end < size) {
      const chunk = this.readLines(fd, end, size);
      if (chunk.end === end) break; // an unfinished last line: its writer may still finish it
      for (let i = 0; i < chunk.lines.length; i += IN_FLIGHT) {
        const batch = chunk.lines.slice(i, i + IN_FLIGHT);
        for (const l of batch) {
          if (l.type === 'composition' && l.hash && !this.compositions.has(l.hash)) {
            if (!(await this.shipComposition(session, l.hash))) return { end, lines: count, stalled: true };
          }
        }
        const acks = await Promise.allSettled(batch.map((l) =>
          this.ctx.fleet.js.publish(eventSubject(this.ctx.box, session), l.text, { msgID: eventMsgId(session, l.seq), timeout: 5_000 })));
        for (let k = 0; k < acks.length; k++) {
          const a = acks[k]!;
          if (a.status === 'rejected') {
            this.ctx.log.warn({ event: 'ship_stalled', session, seq: batch[k]!.seq, err: (a.reason as Error).message }, `shipping ${session} stopped at seq ${batch[k]!.seq} (${(a.reason as Error).message}); it continues on a later pass`);
            return { end, lines: count, stalled: true };
          }
          end = batch[k]!.end;
          count++;
        }
      }
      end = chunk.end;
    }
    return { end, lines: count, stalled: false };
  }

  /**
   * The complete lines of the ledger from byte `from`, at most CHUNK bytes of them (read into the
   * shipper's one buffer), but always at least one line: a line longer than CHUNK is read whole
   * into a buffer of its own. None (end = from) when no line ends before `size`.
   */
  private readLines(fd: number, from: number, size: number): { lines: Line[]; end: number } {
    let want = Math.min(CHUNK, size - from);
    let buf = this.chunk;
    for (;;) {
      if (buf.length < want) buf = Buffer.allocUnsafe(want);
      let n = 0;
      while (n < want) {
        const r = readSync(fd, buf, n, want - n, from + n);
        if (r === 0) break;
        n += r;
      }
      const got = buf.subarray(0, n);
      if (got.lastIndexOf(0x0a) !== -1 || from + n >= size || n < want) return splitLines(got, from);
      want = Math.min(want * 2, size - from); // one line longer than the chunk: read further
    }
  }

  /**
   * Put a session's composition document into its bucket once; false when the server did not take it.
   * A session with no document beside it (a trimmed or foreign one) puts an empty value, so the hub
   * ingests it without waiting; a box that has the document later fills an empty value in.
   */
  private async shipComposition(session: string, hash: string): Promise<boolean> {
    let text = '';
    try {
      // hard-linked from sessions/.compositions/ by design; the hub checks it against its hash
      text = readPlantedText(this.sessionRules(), join(this.ctx.root, 'sessions', session, COMPOSITION_FILE), { maxBytes: 64 * 1024 ** 2, what: 'composition document', linked: true })?.text ?? '';
    } catch (err) {
      // no document beside the ledger, or a planted one: the empty value says so
      if (err instanceof UnsafeFileError) this.ctx.log.warn({ event: 'composition_refused', file: err.file, reason: err.reason }, `${err.message}; shipped as no document`);
    }
    const key = compositionKey(hash);
    try {
      await this.ctx.fleet.compositions.create(key, text);
    } catch (err) {
      const held = await this.ctx.fleet.compositions.get(key).catch(() => null);
      if (!held || held.operation !== 'PUT') {
        this.ctx.log.warn({ event: 'ship_stalled', session, composition: hash, err: (err as Error).message }, `composition ${hash} was not stored (${(err as Error).message}); retrying later`);
        return false;
      }
      if (held.length === 0 && text.length > 0) await this.ctx.fleet.compositions.put(key, text).catch(() => {});
    }
    this.compositions.add(hash);
    this.ctx.state.compositions.push(hash);
    return true;
  }
}
