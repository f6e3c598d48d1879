/**
 * Following a session's ledger live, for `pico watch`.
 *
 * The ledger is append-only and every event is one line, so following it is
 * reading complete lines from a growing file. Only whole lines are yielded:
 * a torn tail (a crash mid-append) has no newline and is never shown, and
 * after the runtime sets it aside the next line lands where we stopped.
 * Polling (default 100 ms) rather than inotify: it works for a file that
 * does not exist yet (a queued job) and costs nothing worth saving. The
 * follow ends after a terminal event, or when result.json exists and the
 * ledger has nothing more to give (a session closed without a ledger).
 */
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { TERMINAL_TYPES } from '../ledger/events.js';

export interface FollowOptions {
  signal?: AbortSignal;
  pollMs?: number;
  /** polled while there is no ledger yet: true ends the follow (e.g. the job was rejected) */
  vanished?: () => boolean;
}

const TERMINAL = new Set<string>(TERMINAL_TYPES);

/** The type of a raw ledger line, or null when it is not a JSON object with a string type. */
export function lineType(line: string): string | null {
  try {
    const v = JSON.parse(line) as { type?: unknown };
    return typeof v?.type === 'string' ? v.type : null;
  } catch {
    return null;
  }
}

/** Yield the ledger's lines as they are appended, until the session ends or `signal` aborts. */
export async function* followLedger(ledgerPath: string, resultPath: string, opts: FollowOptions = {}): AsyncGenerator<string> {
  const pollMs = opts.pollMs ?? 100;
  let offset = 0;
  let rest = '';
  const buf = Buffer.alloc(64 * 1024);
  while (!opts.signal?.aborted) {
    const finishedBefore = existsSync(resultPath); // looked at before reading, so no line written before it is missed
    let lines = 0;
    const fh = await open(ledgerPath, 'r').catch(() => null);
    if (fh) {
      try {
        for (;;) {
          const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
          if (bytesRead === 0) break;
          offset += bytesRead;
          rest += buf.subarray(0, bytesRead).toString('utf8');
          let nl: number;
          while ((nl = rest.indexOf('\n')) !== -1) {
            const line = rest.slice(0, nl);
            rest = rest.slice(nl + 1);
            if (line.trim() === '') continue;
            lines++;
            yield line;
            if (TERMINAL.has(lineType(line) ?? '')) return;
          }
        }
      } finally {
        await fh.close();
      }
    }
    // a torn tail stays in `rest` but is not counted as read: re-read it from its start next time
    if (rest.length > 0) {
      offset -= Buffer.byteLength(rest, 'utf8');
      rest = '';
    }
    if (finishedBefore && lines === 0) return;
    if (!fh && opts.vanished?.()) return;
    await sleep(pollMs, undefined, { signal: opts.signal }).catch(() => undefined);
  }
}
