/**
 * The shapes of one world run, shared by run.ts (a program) and builtin.ts
 * (a built-in the world does itself): the request a caller hands in and the
 * one result it gets back, success or failure. Also the two readings every
 * caller of a run makes (a tool, a shell provider): the stderr excerpt for a
 * message, and the error to raise when the caller's own signal stopped it.
 * Shapes and readings only; nothing here starts a process.
 */
import type { HostView } from '../registry/host-view.js';
import type { IsolationLevel } from '../registry/levels.js';

export interface WorldRequest {
  argv: string[];
  /** written to stdin, which is then closed; absent = stdin closed at once */
  stdin?: string;
  /** the run's own working directory (see makeWorkDir); also HOME */
  cwd: string;
  timeoutMs: number;
  /** stdout beyond this many bytes is dropped and the process group killed */
  maxOutputBytes: number;
  /** declared variables, added to the scrubbed base environment */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** paths that stay writable when the filesystem is read-only; default [cwd] */
  writable?: string[];
  /** what of the host this run sees as the host does (a tool's `host_view`, registry/host-view.ts); it lowers the run's level; default nothing */
  hostView?: readonly HostView[];
  /** the least isolation this program may run under; a lower run level = not run (cause says why) */
  requires?: IsolationLevel;
  /** paths the program may read besides the system folders (where host paths are hidden); default none */
  readable?: string[];
  /** groups the program keeps when it is handed from root to the sandbox user (a tool's read_groups); default none */
  groups?: readonly string[];
}

export interface WorldResult {
  /** the argv as requested, joined for people (the isolation wrapper is not shown) */
  command: string;
  cwd: string;
  durationMs: number;
  /** null when the process was killed by a signal or never started */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  truncated: boolean;
  /** the caller's AbortSignal stopped the run */
  canceled: boolean;
  stdout: string;
  /** capped at STDERR_CAP bytes (run.ts) */
  stderr: string;
  /** true unless the process exited 0 within its limits */
  failed: boolean;
  /** why it failed, when the process could not start or the world stopped it */
  cause?: string;
  /** the level this run had: the machine's, lowered by any host view */
  isolation: IsolationLevel;
  /** what of the host the run saw as the host does; absent when nothing */
  hostView?: HostView[];
}

const STDERR_IN_MESSAGE = 2000;

/** The tail end of stderr, short enough for a ledger message. */
export function stderrExcerpt(stderr: string): string {
  const s = stderr.trim();
  return s.length <= STDERR_IN_MESSAGE ? s : `…${s.slice(-STDERR_IN_MESSAGE)}`;
}

/** The error to raise when a caller's signal stopped a run: its reason, never a tool fault. */
export function abortReason(signal: AbortSignal | undefined): Error {
  const r: unknown = signal?.reason;
  return r instanceof Error ? r : new DOMException('the call was canceled', 'AbortError');
}
