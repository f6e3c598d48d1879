/**
 * What a confined program must be able to read besides the system folders:
 * the files its own argv names (a script given to `sh`, a provider
 * executable in the root) and the folders it declares (a tool's read_paths).
 *
 * Why: at level "full" the program sees a new root holding only what is
 * bound into it, so a script that exists on the host would be "not found"
 * inside. Only literal argv elements count — a value that came from an
 * argument is confined by tools/args.ts to read_paths, which are bound
 * whole. Paths are bound by their real path (after symlinks), read-only.
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { placeholder } from '../base/argv-grammar.js';

/** Real paths of existing files or folders named by absolute (or root-relative, with a "/") argv elements. */
export function argvFiles(elements: readonly string[], root: string): string[] {
  const out: string[] = [];
  for (const e of elements) {
    if (!e.includes('/') || placeholder(e) !== null) continue;
    const p = real(isAbsolute(e) ? e : resolve(root, e));
    if (p && statSync(p).isFile()) out.push(p);
  }
  return out;
}

/** Real paths of the declared folders that exist on this machine (relative ones are under the root). */
export function declaredPaths(paths: readonly string[], root: string): string[] {
  return paths.map((p) => real(isAbsolute(p) ? p : resolve(root, p))).filter((p): p is string => p !== null);
}

function real(p: string): string | null {
  try {
    return realpathSync.native(p);
  } catch {
    return null;
  }
}
