/**
 * Issue 25, "Done when": "A box with no fleet settings runs exactly as today,
 * with no fleet code loaded (idle RSS unchanged)." Everything the daemon and
 * its session worker can import, statically or on demand, is walked from
 * their entry files; neither src/fleet/ nor the NATS client is among it. Only
 * `pico fleet` (src/cli/fleet.ts) loads them, and `pico report --fleet` /
 * `pico failures report --fleet` on demand, when the flag is given.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Every file reachable from `entry` through relative imports (static and dynamic), and the packages named. */
function reach(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = [resolve(REPO, entry)];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (files.has(f)) continue;
    files.add(f);
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)) {
      const spec = m[1]!;
      if (!spec.startsWith('.')) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
        continue;
      }
      const ts = resolve(dirname(f), spec).replace(/\.js$/, '.ts');
      if (existsSync(ts)) todo.push(ts);
    }
  }
  return { files, packages };
}

describe('a box without a fleet', () => {
  it('the daemon and its session worker never load fleet code or the NATS client', () => {
    for (const entry of ['src/cli/daemon.ts', 'src/daemon/worker.ts']) {
      const { files, packages } = reach(entry);
      expect(files.size, entry).toBeGreaterThan(20); // the walk found the daemon's own modules
      expect([...files].map((f) => relative(REPO, f)).filter((f) => f.startsWith(join('src', 'fleet'))), entry).toEqual([]);
      expect([...packages].filter((p) => p.startsWith('@nats-io')), entry).toEqual([]);
    }
  });

  it('the command table loads the fleet only for `pico fleet`, and for --fleet of report and failures on demand', () => {
    const { files } = reach('src/cli/main.ts');
    // main.ts reaches every command on demand; no command imports the fleet statically, and only
    // cli/fleet.ts and the --fleet flags of report and failures import it at all
    const importing = (re: RegExp): string[] => [...files].filter((f) => re.test(readFileSync(f, 'utf8'))).map((f) => relative(REPO, f)).sort();
    expect(importing(/from ['"]\.\.\/fleet\//)).toEqual([]);
    expect(importing(/import\(['"]\.\.\/fleet\//)).toEqual(['failures.ts', 'fleet.ts', 'report.ts'].map((f) => join('src', 'cli', f)));
  });
});
