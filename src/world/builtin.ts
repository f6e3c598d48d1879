/**
 * Built-in operations of the execution world: things the world does itself
 * instead of starting a program, behind the same request and result shapes
 * (shapes.ts).
 *
 * Why: reading one text file is the commonest tool step, and on a 2-core box
 * a subprocess costs 10–25 ms without isolation and 150 ms or more with the
 * unshare sandbox (measured here; see the bench), which alone caps the
 * daemon far below its 200 jobs/s goal. A read done by this code is not an
 * untrusted program, so the subprocess's isolation has nothing to contain;
 * the limits that matter still apply: the path was confined to the tool's
 * `read_paths` after symlinks (tools/args.ts), the final component is opened
 * with O_NOFOLLOW, only regular files are read, the output cap holds, and the
 * read is bounded by the same wall-clock limit.
 *
 * Only `builtin:read PATH` exists. A tool manifest opts in by naming it as
 * its command; anything else is a program and runs as a subprocess.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { WorldRequest, WorldResult } from './shapes.js';

export const BUILTIN_READ = 'builtin:read';

/** True when the argv names a world built-in rather than a program. */
export function isBuiltin(argv: readonly string[]): boolean {
  return argv[0]?.startsWith('builtin:') ?? false;
}

/** Run a built-in; an unknown one is refused like a missing program (exit 127). */
export async function runBuiltin(req: WorldRequest): Promise<WorldResult> {
  const started = performance.now();
  // isolation 'none': no program runs, so there is nothing for a sandbox to hold
  const base = { command: req.argv.join(' '), cwd: req.cwd, isolation: 'none' as const, signal: null, timedOut: false, canceled: false };
  const done = (r: { exitCode: number; stdout?: string; stderr?: string; truncated?: boolean; cause?: string }): WorldResult => ({
    ...base, durationMs: performance.now() - started, exitCode: r.exitCode, truncated: r.truncated ?? false,
    stdout: r.stdout ?? '', stderr: r.stderr ?? '', failed: r.exitCode !== 0 || (r.truncated ?? false),
    ...(r.cause ? { cause: r.cause } : {}),
  });
  const [name, ...args] = req.argv;
  if (name !== BUILTIN_READ || args.length !== 1) {
    return done({ exitCode: 127, stderr: `${name}: unknown built-in or wrong arguments (only "${BUILTIN_READ} PATH" exists)`, cause: 'unknown built-in' });
  }
  const path = args[0]!;
  // Synchronous on purpose: four round trips through the thread pool cost more than reading a
  // capped file, and the daemon runs one step at a time anyway.
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    return done({ exitCode: 1, stderr: `${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return done({ exitCode: 1, stderr: `${path}: not a regular file` });
    const buf = Buffer.alloc(Math.min(st.size, req.maxOutputBytes) + 1);
    let n = 0;
    const deadline = started + req.timeoutMs;
    while (n < buf.length) {
      if (performance.now() > deadline) return { ...done({ exitCode: 1, stderr: '' }), timedOut: true, exitCode: null, cause: 'timed out' };
      const bytesRead = readSync(fd, buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    const truncated = n > req.maxOutputBytes;
    const text = buf.subarray(0, Math.min(n, req.maxOutputBytes)).toString('utf8');
    return done({ exitCode: 0, stdout: truncated ? text.replace(/\uFFFD$/, '') : text, truncated });
  } finally {
    closeSync(fd);
  }
}
