// Machine states made for real, for the tools' tests: a journal made by journald
// (test/fixtures/scripts/make-journal.sh) and bound over /var/log/journal in a private mount
// namespace, a tool run as another user, at a chosen isolation level. Each run is a process of its
// own (test/helpers/tool-runner.mjs, over the compiled dist/), so nothing of the host changes.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './root.js';
import { tempDir } from './temp.js';

export const isRoot = process.getuid?.() === 0;
/** journald and unshare are here and we are root: a real journal can be made and bound in place */
export const canMakeJournal = isRoot && existsSync('/lib/systemd/systemd-journald') && existsSync('/usr/bin/unshare');
export const whyNoJournal = 'making a journal needs root, unshare and /lib/systemd/systemd-journald';

const RUNNER = join(REPO, 'test/helpers/tool-runner.mjs');

export interface ToolOutcome {
  tool: string;
  uid: number;
  /** the runner's pid: the "session worker" the tool was run from */
  pid: number;
  level: string | null;
  unavailable?: string;
  output?: string;
  exitCode?: number | null;
  fact?: Record<string, unknown>;
  error?: string;
  message?: string;
  cause?: { id: string; plain: string };
}

/** A real journal in a fresh folder (its machine-id folder inside), made once per call. */
export function makeJournal(): string {
  const dir = tempDir('pico-journal-');
  execFileSync('unshare', ['-m', '--propagation', 'private', 'sh', join(REPO, 'test/fixtures/scripts/make-journal.sh'), dir], { stdio: 'pipe', timeout: 60_000 });
  return dir;
}

/** Set the journal's files as a Debian box has them (root:systemd-journal, 0640; folders 2755) or closed to its group. */
export function journalMode(dir: string, group: 'systemd-journal' | 'root'): void {
  const gid = group === 'root' ? 0 : Number(execFileSync('getent', ['group', group], { encoding: 'utf8' }).split(':')[2]);
  chownSync(dir, 0, gid);
  chmodSync(dir, 0o2755);
  for (const m of readdirSync(dir)) {
    const sub = join(dir, m);
    if (!statSync(sub).isDirectory()) continue;
    chownSync(sub, 0, gid);
    chmodSync(sub, 0o2755);
    for (const f of readdirSync(sub)) {
      chownSync(join(sub, f), 0, gid);
      chmodSync(join(sub, f), 0o640);
    }
  }
}

/**
 * Run a shipped tool in a process of its own: `journal` binds that folder over /var/log/journal (a
 * private mount namespace), `uid` runs the daemon's side as that user (the service's user, not root),
 * `level` picks the isolation (default: the machine's best), `root` the data root.
 */
export function runShipped(tool: string, args: Record<string, unknown>, opts: RunOptions = {}): ToolOutcome {
  return runMany([{ tool, args }], opts)[0]!;
}

export interface RunOptions { root?: string; journal?: string; uid?: number; level?: string; bwrapHidden?: boolean }

/**
 * The mount (in a mount namespace of the caller's own) that hides bubblewrap from what runs after
 * it; null when bubblewrap is not installed: the box is already one without it.
 */
export function hideBwrap(): string | null {
  return existsSync('/usr/bin/bwrap') ? 'mount --bind /dev/null /usr/bin/bwrap' : null;
}

/** Several tool runs in one process (one level, one root): one outcome each, in order. */
export function runMany(runs: { tool: string; args: Record<string, unknown>; approved?: boolean }[], opts: RunOptions = {}): ToolOutcome[] {
  const root = opts.root ?? tempDir('pico-state-');
  if (opts.uid !== undefined) chownTree(root, opts.uid);
  const payload = JSON.stringify({ runs, root, level: opts.level ?? null });
  const node = [process.execPath, RUNNER, payload];
  const asUser = opts.uid !== undefined ? ['setpriv', `--reuid=${opts.uid}`, `--regid=${opts.uid}`, '--clear-groups', '--'] : [];
  const mounts = [opts.journal ? 'mount --bind "$0" /var/log/journal' : null, opts.bwrapHidden ? hideBwrap() : null].filter(Boolean);
  const argv = mounts.length > 0
    ? ['unshare', '-m', '--propagation', 'private', 'sh', '-c', `${mounts.join(' && ')} && exec "$@"`, opts.journal ?? '-', ...asUser, ...node]
    : [...asUser, ...node];
  const out = execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 300_000, cwd: '/', maxBuffer: 64 * 1024 * 1024 });
  return out.trim().split('\n').map((l) => JSON.parse(l) as ToolOutcome);
}

/** Give a root to another user, as its daemon would own it (folders 0755). */
function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  if (statSync(dir).isDirectory()) {
    chmodSync(dir, 0o755);
    for (const e of readdirSync(dir)) chownTree(join(dir, e), uid);
  }
}
