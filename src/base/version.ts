/**
 * The package's version, read from the package.json that ships with this
 * module (found by walking up from the module's own folder, so it is right
 * whatever the current directory, from src/ under tsx or from dist/src/).
 * `pico --version` prints it with the Node version running it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface VersionInfo {
  name: string;
  version: string;
  node: string;
  package_json: string | null;
}

/** The nearest package.json above this module that names the package. */
function packageJson(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return file;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** What `pico --version` reports. */
export function versionInfo(): VersionInfo {
  const file = packageJson();
  let pkg: { name?: unknown; version?: unknown } = {};
  try {
    if (file) pkg = JSON.parse(readFileSync(file, 'utf8')) as typeof pkg;
  } catch {
    // reported as unknown below
  }
  return { name: typeof pkg.name === 'string' ? pkg.name : 'picoharness', version: typeof pkg.version === 'string' ? pkg.version : 'unknown', node: process.versions.node, package_json: file };
}
