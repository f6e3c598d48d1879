/**
 * The progress a person sees during `pico run` and `pico watch`: a line per
 * step start, attempt and end (src/progress/steps.ts), and while a provider
 * call runs, one live line with its tokens so far and time (view.ts).
 *
 * `runProgress` is fed in-process (the runtime's onEvent and onProgress);
 * `watchProgress` is fed by another process's ledger lines and its side file
 * (src/progress/side-file.ts), polled every `pollMs`. Both tick every 500 ms
 * so the time on the live line moves while no token arrives (a prompt being
 * read). Neither writes anything but the output stream.
 */
import type { ProviderProgress } from '../adapters/progress.js';
import { readProgress } from '../progress/side-file.js';
import { StepTracker } from '../progress/steps.js';
import { LiveView, type ProgressOutput } from '../progress/view.js';

const TICK_MS = 500;

export interface RunProgress {
  onEvent(e: object): void;
  onProgress(p: ProviderProgress): void;
  close(): void;
}

/** Progress of a run in this process, written to `out` (stderr for `pico run`). */
export function runProgress(out: ProgressOutput, rest: string, o: { plainEveryMs?: number } = {}): RunProgress {
  const steps = new StepTracker(rest);
  const view = new LiveView(out, o);
  let call: { p: ProviderProgress; at: number } | null = null;
  const draw = (): void => view.live(call ? steps.live({ ...call.p, ms: call.p.ms + (Date.now() - call.at) }) : null);
  const tick = setInterval(draw, TICK_MS);
  tick.unref();
  return {
    onEvent(e) {
      const line = steps.line(e as Record<string, unknown>);
      if (line !== null) view.line(line);
    },
    onProgress(p) {
      call = p.phase === 'ended' ? null : { p, at: Date.now() };
      draw();
    },
    close() {
      clearInterval(tick);
      view.close();
    },
  };
}

export interface WatchProgress {
  /** the suffix to print after this event's line (step committed / failed, and in how long) */
  onEvent(e: Record<string, unknown>): string;
  /** print a line that stays (the live line is put back below it) */
  line(text: string): void;
  close(): void;
}

/** Progress of a session another process runs: its side file, read while the ledger shows a step in flight. */
export function watchProgress(out: ProgressOutput, sessionDir: string, session: string, rest: string, o: { plainEveryMs?: number; pollMs?: number } = {}): WatchProgress {
  const steps = new StepTracker(rest);
  const view = new LiveView(out, o);
  const poll = (): void => {
    const doc = readProgress(sessionDir, session, steps.current);
    view.live(doc ? steps.live({ ...doc, ms: doc.ms + Math.max(0, Date.now() - Date.parse(doc.updated_at)) }) : null);
  };
  const tick = setInterval(poll, o.pollMs ?? TICK_MS);
  tick.unref();
  return {
    onEvent(e) {
      const suffix = steps.suffix(e);
      steps.line(e);
      return suffix;
    },
    line: (text) => view.line(text),
    close() {
      clearInterval(tick);
      view.close();
    },
  };
}
