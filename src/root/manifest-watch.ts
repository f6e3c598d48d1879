/**
 * Have the manifests changed since the runtime last loaded them?
 *
 * The answer is a fingerprint of the manifest and prompt folders and of the shell providers'
 * programs (names, sizes, mtimes: a fixed script is a new composition, so its measurements start
 * fresh). Taking it costs some hundred system calls (a readdir per folder, a stat per file), which
 * a session worker used to pay before every job: about a tenth of a job's time. So a long-running
 * runtime (the session worker) watches those folders (inotify, through fs.watch) and takes the
 * fingerprint only when something in them moved, or when the last one is older than
 * SAFETY_NET_MS: a change a watch cannot see (a folder on a network filesystem written by
 * another machine, a watch the kernel refused) is still found within that time, and a job after
 * a quiet spell always looks. An idle worker hears a change the moment it is made, long before
 * the next job can reach it; during a burst the jobs already handed over may still run on the
 * set they were handed over under, as they could before. Without watching, every call looks.
 */
import { existsSync, readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { LoadedRoot } from '../registry/load.js';
import { PACKAGE_DIR } from '../base/package.js';
import { writeFileAtomicSync } from '../base/durable-file.js';

/** The folders whose files make up the manifests a runtime loads, relative to the root. */
export const MANIFEST_FOLDERS = ['manifests/capabilities', 'manifests/schemas', 'manifests/tools', 'manifests/providers', 'manifests/playbooks', 'manifests/lexicon', 'prompts'];

/** With a watch, the longest a fingerprint is trusted without looking again. */
export const SAFETY_NET_MS = 1000;

/** The fingerprint of the manifests under `root`, and the shell programs `loaded` names. */
export function manifestFingerprint(root: string, loaded?: LoadedRoot): string {
  const parts: string[] = [];
  const stamp = (label: string, abs: string) => {
    try {
      const st = statSync(abs);
      parts.push(`${label}:${st.size}:${st.mtimeMs}`);
    } catch {
      parts.push(`${label}:missing`);
    }
  };
  for (const dir of MANIFEST_FOLDERS) {
    const abs = join(root, dir);
    if (!existsSync(abs)) continue;
    for (const name of readdirSync(abs).sort()) stamp(`${dir}/${name}`, join(abs, name));
  }
  for (const program of programs(root, loaded)) stamp(program.label, program.path);
  return parts.join('|');
}

/**
 * What a set of manifests that loaded is known by: the fingerprint of the manifest folders
 * (without the shell programs, which do not decide whether the set loads), under this build of
 * the code that checks them (the package's version and its last build, dist/tsconfig.tsbuildinfo);
 * null when the build cannot be told (running from sources). A session worker records it once a
 * set loaded and compiled from the files themselves (writeCheckedStamp); a daemon that starts on
 * the same stamp knows the set loads without waiting for a worker to check it again
 * (daemon/startup.ts), and any change to a file, a folder or the build makes it unknown again.
 */
export function checkedStamp(root: string): string | null {
  const build = buildStamp();
  return build === null ? null : `${build}\n${manifestFingerprint(root)}\n`;
}

/**
 * This build of the code that checks manifests: the package's version, its last build
 * (dist/tsconfig.tsbuildinfo) and node's version, in one line; null when the build cannot be
 * told (running from sources).
 */
export function buildStamp(): string | null {
  const build = statSync(join(PACKAGE_DIR, 'dist', 'tsconfig.tsbuildinfo'), { throwIfNoEntry: false });
  if (!build) return null;
  let version = 'unknown';
  try {
    version = String((JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version?: unknown }).version);
  } catch {
    // the build's time still tells builds apart
  }
  return `picoharness ${version}, build ${build.mtimeMs}:${build.size}, node ${process.versions.node}`;
}

/** Record `stamp` (taken before the set was read) as a set that loaded; a failure only costs the next start its shortcut. */
export function writeCheckedStamp(file: string, stamp: string): void {
  try {
    writeFileAtomicSync(file, stamp, false);
  } catch {
    // a full disk: the next daemon waits for its worker to check the manifests, as without a stamp
  }
}

/** True when the manifests under `root` are the set `file` records as loaded, under this build. */
export function knownToLoad(root: string, file: string): boolean {
  let recorded: string;
  try {
    recorded = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  const now = checkedStamp(root);
  return now !== null && recorded === now;
}

/** The files of the shell providers' commands (a "/" in an element that is no placeholder). */
function programs(root: string, loaded?: LoadedRoot): { label: string; path: string }[] {
  const out: { label: string; path: string }[] = [];
  for (const p of Object.values(loaded?.documents.providers ?? {})) {
    if (p.kind !== 'shell') continue;
    p.command.forEach((arg, i) => {
      if (arg.includes('/') && !arg.includes('{')) out.push({ label: `program:${p.id}:${i}`, path: isAbsolute(arg) ? arg : join(root, arg) });
    });
  }
  return out;
}

/** Tells a long-running runtime when its fingerprint must be taken again (see the header). */
export class ManifestWatch {
  private readonly watchers = new Map<string, { w: FSWatcher; ino: number }>();
  private dirty = true;
  private lookedAt = -Infinity;
  /** a folder could not be watched: every call looks */
  private blind = false;

  constructor(private readonly root: string, private readonly now: () => number = () => performance.now()) {}

  /** Must the fingerprint be taken now? */
  due(): boolean {
    return this.blind || this.dirty || this.now() - this.lookedAt >= SAFETY_NET_MS;
  }

  /** About to take the fingerprint: a change from now on counts again. */
  looking(): void {
    this.dirty = false;
    this.lookedAt = this.now();
  }

  /**
   * Watch the folders of the set `loaded` names: the manifest folders, their parents (a folder
   * made later), the shell programs' folders; a folder removed or replaced since (another inode)
   * is watched anew.
   */
  follow(loaded?: LoadedRoot): void {
    this.blind = false;
    const want = new Set([this.root, join(this.root, 'manifests'), ...MANIFEST_FOLDERS.map((d) => join(this.root, d)), ...programs(this.root, loaded).map((p) => dirname(p.path))]);
    for (const [dir, { w }] of this.watchers) {
      if (want.has(dir)) continue;
      w.close();
      this.watchers.delete(dir);
    }
    for (const dir of want) {
      let ino: number | undefined;
      try {
        ino = statSync(dir, { throwIfNoEntry: false })?.ino;
      } catch {
        ino = undefined; // unreadable: nothing to watch, and the fingerprint says what it can
      }
      const had = this.watchers.get(dir);
      if (had && had.ino === ino) continue;
      had?.w.close();
      this.watchers.delete(dir);
      if (ino === undefined) continue;
      try {
        const w = watch(dir, { persistent: false }, () => (this.dirty = true));
        w.on('error', () => (this.dirty = true));
        this.watchers.set(dir, { w, ino });
      } catch {
        this.blind = true; // the kernel's watch limit, a filesystem without change events
      }
    }
  }

  close(): void {
    for (const { w } of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
