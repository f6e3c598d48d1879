/**
 * `pico eval`'s progress on stderr: case n of N, the time so far and an
 * estimate of what is left (the mean time per case so far, times the cases
 * left), so a Pi owner can tell whether a run takes minutes or hours.
 *
 * On a terminal the line is rewritten in place after every case and cleared
 * at the end; in a pipe or a log it is a plain line at most every
 * `everyMs` (a fast run, a replay, prints none). Stdout (the table, or
 * `--json`) is never touched. This module only formats and writes.
 */

export interface ProgressSink {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** "42 s", "3 min 05 s", "1 h 02 min": a duration as a person reads it. */
export function humanDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** The progress line after `done` of `total` cases in `elapsedMs`. */
export function progressLine(done: number, total: number, elapsedMs: number): string {
  const left = done === 0 ? null : (elapsedMs / done) * (total - done);
  return `pico eval: case ${done} of ${total}, ${humanDuration(elapsedMs)} so far${left === null ? '' : done === total ? '' : `, about ${humanDuration(left)} left`}`;
}

/** A progress reporter for one run: `tick(done, total)` after each case, `end()` when the run is over. */
export function evalProgress(sink: ProgressSink, now: () => number = Date.now, everyMs = 2000): { tick(done: number, total: number): void; end(): void } {
  const t0 = now();
  let lastPrinted = t0;
  let shown = false;
  return {
    tick(done, total) {
      const t = now();
      if (sink.isTTY) {
        sink.write(`\r\x1b[2K${progressLine(done, total, t - t0)}`);
        shown = true;
      } else if (t - lastPrinted >= everyMs || (done === total && shown)) {
        sink.write(`${progressLine(done, total, t - t0)}\n`);
        lastPrinted = t;
        shown = true;
      }
    },
    end() {
      if (sink.isTTY && shown) sink.write('\r\x1b[2K');
    },
  };
}
