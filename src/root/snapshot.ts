/**
 * The last good set of manifests: the texts of every manifest file, taken
 * before they are loaded and kept (by the caller) once they loaded cleanly.
 *
 * Why: the docs promise that a broken manifest never takes the last good
 * set out of force. A running runtime keeps its loaded set in memory, but a
 * new session worker (started after the last one idled out or died) reads
 * the folders afresh; with a typo there it could not open, and every job
 * stalled. With a snapshot it loads the set that last loaded, and says so.
 *
 * Loading from the snapshot that was read is what makes it exact: the files
 * are read once, into the snapshot, and the registry is built from it, so the
 * set kept is the set that loaded. This module does not decide when to fall
 * back (runtime.ts does); it only captures, stores and serves texts. It sits
 * in src/root/ with the opening of a root, its one user, above the registry
 * whose manifest sources it fills.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../base/durable-file.js';
import { manifestFolder, ManifestReadError } from '../base/manifest-file.js';
import type { ManifestIssue } from '../registry/boundary.js';
import { folderSource, type ManifestSource } from '../registry/load.js';

export const MANIFEST_DIRS = ['schemas', 'capabilities', 'tools', 'providers', 'playbooks', 'lexicon'] as const;

export interface ManifestSnapshot {
  snapshot: 'manifests@1';
  /** file names per folder (null: the folder is absent) */
  lists: Record<string, string[] | null>;
  /** issues met while listing (a symlink out of the root), replayed on load */
  listIssues: Record<string, ManifestIssue[]>;
  /** texts by path relative to the root; a file that could not be read is absent */
  files: Record<string, string>;
  /** why a file could not be read (not UTF-8 at an offset, a link…), so loading it says so */
  unreadable?: Record<string, { message: string; fix: string }>;
}

/** Read every manifest file of a root once. */
export function captureManifests(root: string): ManifestSnapshot {
  const live = folderSource(root);
  const snap: ManifestSnapshot = { snapshot: 'manifests@1', lists: {}, listIssues: {}, files: {} };
  for (const dir of MANIFEST_DIRS) {
    const issues: ManifestIssue[] = [];
    const names = live.list(dir, issues);
    snap.lists[dir] = names;
    snap.listIssues[dir] = issues;
    // each file as folderSource reads it, the folder opened once for all of them (issue 32)
    const folder = names?.length ? manifestFolder(root, `manifests/${dir}`) : null;
    try {
      for (const name of names ?? []) {
        const file = `manifests/${dir}/${name}`;
        try {
          snap.files[file] = folder ? folder.read(name) : live.read(file);
        } catch (err) {
          // reported when loaded, in the reader's own words (the byte offset of a byte that is not UTF-8)
          (snap.unreadable ??= {})[file] = { message: (err as Error).message, fix: err instanceof ManifestReadError ? err.fix : 'check the file permissions' };
        }
      }
    } finally {
      folder?.close();
    }
  }
  return snap;
}

/** Serve a snapshot's texts to loadRoot. */
export function snapshotSource(snap: ManifestSnapshot): ManifestSource {
  return {
    list(dir, issues) {
      issues.push(...(snap.listIssues[dir] ?? []));
      return snap.lists[dir] ?? null;
    },
    read(file) {
      const text = snap.files[file];
      const why = snap.unreadable?.[file];
      if (text === undefined && why) throw new ManifestReadError(why.message, why.fix);
      if (text === undefined) throw new Error(`${file} could not be read when the manifests were taken`);
      return text;
    },
  };
}

/** The snapshot stored at `path`, or null when there is none or it is damaged. */
export function readSnapshot(path: string): ManifestSnapshot | null {
  if (!existsSync(path)) return null;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as ManifestSnapshot;
    return v.snapshot === 'manifests@1' && typeof v.files === 'object' ? v : null;
  } catch {
    return null;
  }
}

/** Store a snapshot that loaded cleanly (atomically: a torn one is never read). */
export function storeSnapshot(path: string, snap: ManifestSnapshot): void {
  writeFileAtomicSync(path, JSON.stringify(snap));
}
