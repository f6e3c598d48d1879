/**
 * The progress side file: `sessions/<id>/progress.json`, how far the provider
 * call in flight has got, for `pico watch` in another process.
 *
 * Why a file: `pico watch` follows the ledger, which only hears of a call
 * when it ends; progress is not a fact and must never enter the ledger (a
 * replay must write the same bytes). The worker writes this small file once
 * a call has run a moment (`FIRST_WRITE_MS`: a call that ends sooner, as
 * nearly every code provider's does, costs no file at all), then at most every
 * `everyMs` (temp name + rename, so a reader sees a whole one; not fsynced —
 * losing it to a power cut loses nothing), and removes it when the call ends
 * and when the run ends. A reader trusts it only while the
 * process that wrote it lives and the step it names is the one the ledger
 * shows in flight; anything else is stale and ignored. Errors writing it are
 * swallowed: progress never fails a run. It does not render anything.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderProgress } from '../adapters/progress.js';

export const PROGRESS_FILE = 'progress.json';

/** progress@1: what the side file holds. */
export interface ProgressDoc {
  progress: 'progress@1';
  session: string;
  /** the step in flight (the last step_started the worker saw) */
  step: string | null;
  provider: string;
  kind: ProviderProgress['kind'];
  attempt: number;
  output_tokens: number | null;
  /** ms since the call started, when the file was written */
  ms: number;
  pid: number;
  updated_at: string;
}

/** A call shorter than this leaves no file: most code providers answer within a millisecond, and `pico watch` could not show them anyway. */
export const FIRST_WRITE_MS = 100;

export class ProgressWriter {
  private readonly file: string;
  private step: string | null = null;
  private last = -Infinity;
  /** the call in flight: its latest report and when it started, by this writer's clock */
  private call: { p: ProviderProgress; at: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** this writer put the file there (only then is there anything to remove) */
  private written = false;

  constructor(sessionDir: string, private readonly session: string, private readonly everyMs = 250, private readonly now = Date.now, private readonly firstMs = FIRST_WRITE_MS) {
    this.file = join(sessionDir, PROGRESS_FILE);
  }

  /** The step now in flight (null: none; the file goes). */
  setStep(step: string | null): void {
    this.step = step;
    if (step === null) this.clear();
  }

  /**
   * A report from the adapter. The first write waits until the call has run `firstMs` (a timer,
   * or a token report after it), then at most every `everyMs`; the file goes when the call ends.
   */
  report(p: ProviderProgress): void {
    if (p.phase === 'ended') return this.clear();
    const now = this.now();
    if (p.phase === 'started' || !this.call) {
      this.disarm();
      this.call = { p, at: now - p.ms };
      this.timer = setTimeout(() => {
        this.timer = null;
        const now = this.now();
        if (this.call) this.write({ ...this.call.p, ms: now - this.call.at }, now);
      }, Math.max(0, this.firstMs - p.ms));
      this.timer.unref?.();
      return;
    }
    this.call.p = p;
    if (now - this.call.at < this.firstMs || now - this.last < this.everyMs) return;
    this.disarm();
    this.write(p, now);
  }

  private write(p: ProviderProgress, now: number): void {
    this.last = now;
    const doc: ProgressDoc = {
      progress: 'progress@1', session: this.session, step: this.step, provider: p.provider, kind: p.kind, attempt: p.attempt,
      output_tokens: p.output_tokens, ms: p.ms, pid: process.pid, updated_at: new Date(now).toISOString(),
    };
    const tmp = join(this.file, '..', `.${PROGRESS_FILE}.${process.pid}.tmp`);
    try {
      writeFileSync(tmp, `${JSON.stringify(doc)}\n`);
      renameSync(tmp, this.file);
      this.written = true;
    } catch {
      // a full disk or a vanished folder: the run goes on without live progress
    }
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The call or the run ended: no write is due any more, and a file this writer put there goes. */
  clear(): void {
    this.disarm();
    this.call = null;
    this.last = -Infinity;
    if (!this.written) return;
    this.written = false;
    try {
      unlinkSync(this.file);
    } catch {
      // gone already: a reader ignores a stale file anyway
    }
  }
}

/** Is the process alive (EPERM: alive, another user's)? */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The side file of a session, when it is current: whole, progress@1, this session's, its writer alive,
 * and about `step` (the step the reader's ledger shows in flight). Otherwise null.
 */
export function readProgress(sessionDir: string, session: string, step: string | null): ProgressDoc | null {
  let doc: Partial<ProgressDoc>;
  try {
    doc = JSON.parse(readFileSync(join(sessionDir, PROGRESS_FILE), 'utf8')) as Partial<ProgressDoc>;
  } catch {
    return null;
  }
  if (doc?.progress !== 'progress@1' || doc.session !== session || typeof doc.pid !== 'number' || typeof doc.provider !== 'string') return null;
  if (step === null || doc.step !== step || !alive(doc.pid)) return null;
  return doc as ProgressDoc;
}
