/**
 * The real compiled daemon with its stdout a regular file instead of a pipe, so
 * a test can make that file "the journal's stream" by putting its device and
 * inode into JOURNAL_STREAM (what systemd does for the real journal socket),
 * and read back the exact bytes the daemon wrote. Needs `npm run build` first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { afterEach } from 'vitest';
import { MAIN_JS } from '../daemon/spawn.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** "DEV:INODE" of a file, as systemd writes JOURNAL_STREAM. */
export function devIno(path: string): string {
  const st = statSync(path, { bigint: true });
  return `${st.dev}:${st.ino}`;
}

export interface FileDaemon {
  child: ChildProcess;
  /** the log file's lines so far */
  lines(): string[];
  /** resolves with the first line (past or future) containing `text`; polls the file */
  waitFor(pred: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  exited: Promise<number | string>;
}

/** Who the daemon runs as (root only can ask), and with which umask (as the unit's UMask=). */
export interface RunAs {
  uid: number;
  gid: number;
  umask: string;
}

/** Start `pico daemon --root root` with stdout appended to `logFile`, optionally as another user. */
export function startDaemonToFile(root: string, logFile: string, env: NodeJS.ProcessEnv, as?: RunAs): FileDaemon {
  const fd = openSync(logFile, 'a');
  const argv = [process.execPath, MAIN_JS, 'daemon', '--root', root];
  const [cmd, ...args] = as ? ['sh', '-c', `umask ${as.umask}; exec "$@"`, 'sh', ...argv] : argv;
  const child = spawn(cmd!, args, { env: { ...process.env, ...env }, stdio: ['ignore', fd, 'pipe'], ...(as ? { uid: as.uid, gid: as.gid } : {}) });
  closeSync(fd);
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | string>((ok) => child.once('exit', (code, sig) => ok(code ?? sig ?? 'unknown')));
  let gone = false;
  void exited.then(() => (gone = true));
  const lines = (): string[] => readFileSync(logFile, 'utf8').split('\n').filter((l) => l !== '');
  return {
    child,
    lines,
    exited,
    async waitFor(pred, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const hit = lines().find(pred);
        if (hit !== undefined) return hit;
        if (gone) throw new Error(`daemon exited before the awaited line; stderr: ${stderr.slice(-2000)}`);
        if (Date.now() > until) throw new Error(`line not seen within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}; last lines: ${lines().slice(-5).join('\n')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
