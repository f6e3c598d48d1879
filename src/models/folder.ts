/**
 * The root's model folder: `<root>/models/` (/var/lib/picoharness/models
 * under the unit, inside its ReadWritePaths, where ProtectHome and PrivateTmp
 * cannot hide a model).
 *
 * `pico provision` brings a file in by a hard link when the file is on the
 * same filesystem and the kernel allows it, else by a copy; either way it
 * first lands under a dot-name unique to this provision (`stage`) and only
 * takes its real name at `commit`, without ever replacing a file that has
 * that name; `discard` removes whatever the stage left. A file already inside
 * models/ is used where it is. Manifests name such files relative to the root
 * (`models/x.gguf`), so a root can move. This module places files; it does
 * not read GGUF or write manifests.
 */
import { randomBytes } from 'node:crypto';
import { constants, copyFileSync, existsSync, linkSync, mkdirSync, realpathSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';

export const MODELS_DIR = 'models';

/** `<root>/models`. */
export function modelsDirFor(root: string): string {
  return path.join(root, MODELS_DIR);
}

/** True when `file` (resolved, links followed) lies inside the root's models/ folder. */
export function insideModels(root: string, file: string): boolean {
  let dir: string;
  let real: string;
  try {
    dir = realpathSync(modelsDirFor(root));
    real = realpathSync(file);
  } catch {
    return false;
  }
  return real.startsWith(dir + path.sep);
}

export interface Placement {
  /** what the manifest's `file` says: relative to the root */
  file: string;
  /** where the bytes are until commit (then the final path) */
  current: string;
  /** give the staged file its name in models/; throws when a file of that name appeared meanwhile */
  commit(): void;
  /** remove what this placement made (the staged file, a placed file on a failed manifest write, a models/ it created) */
  discard(): void;
  how: 'in place' | 'hard link' | 'copy' | 'already there';
}

/**
 * Stage `source` for models/. A file of the same name already there is used when its sha256
 * matches (`sameContent`), and refused otherwise, naming the fix.
 */
export function stageModel(root: string, source: string, sameContent: (existing: string) => boolean): Placement {
  const dir = modelsDirFor(root);
  const rel = (p: string): string => path.relative(root, p).split(path.sep).join('/');
  if (insideModels(root, source)) {
    const abs = path.resolve(source);
    return { file: rel(abs), current: abs, commit: () => undefined, discard: () => undefined, how: 'in place' };
  }
  const final = path.join(dir, path.basename(source));
  if (existsSync(final)) {
    if (!sameContent(final)) {
      throw new Error(`${final} already exists with other content; rename ${source}, or remove the old file (pico models rm ID, or delete it if no manifest uses it: pico models lists unused files)`);
    }
    return { file: rel(final), current: final, commit: () => undefined, discard: () => undefined, how: 'already there' };
  }
  const madeDir = !existsSync(dir);
  mkdirSync(dir, { recursive: true });
  const staged = path.join(dir, `.${path.basename(source)}.${randomBytes(4).toString('hex')}.tmp`);
  let how: Placement['how'] = 'hard link';
  try {
    linkSync(source, staged);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EACCES' && code !== 'EMLINK') throw e;
    how = 'copy'; // another filesystem, or a file we do not own (protected_hardlinks)
    try {
      copyFileSync(source, staged, constants.COPYFILE_EXCL);
    } catch (err) {
      try {
        unlinkSync(staged);
      } catch { /* not made */ }
      if (madeDir) rmdirSync(dir);
      throw err;
    }
    if (statSync(staged).size !== statSync(source).size) throw new Error(`copying ${source} to ${staged} came out short; is the disk full?`);
  }
  let placed = false;
  const p: Placement = {
    file: rel(final), current: staged, how,
    commit() {
      linkSync(staged, final); // EEXIST rather than replacing a file that appeared meanwhile
      placed = true;
      unlinkSync(staged);
      p.current = final;
    },
    discard() {
      for (const f of [staged, ...(placed ? [final] : [])]) {
        try {
          unlinkSync(f);
        } catch { /* already gone */ }
      }
      if (madeDir) {
        try {
          rmdirSync(dir);
        } catch { /* not empty: someone else's file arrived */ }
      }
    },
  };
  return p;
}
