/**
 * Issue 37 item 11 and issue 33 item 5: `npm ci` warned that a fleet package (@nats-io/nuid 3,
 * pulled in by @nats-io/* 3.4) wants Node 22, while the docs say Node 20 is enough. The @nats-io
 * packages are pinned to 3.3.1, whose nuid is 2.0.3 (Node 18 and later). This test reads the
 * lockfile npm installs from: every production package accepts Node 20.19 — the Node 20 that
 * Debian 13 ships and NodeSource's node_20.x installs — so `npm ci` on it warns about none.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');
const NODE_20 = [20, 19, 0] as const;

type V = readonly [number, number, number];
const cmp = (a: V, b: V): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** A version with x, * or missing parts: the parts given (null for a wildcard). */
function partsOf(text: string): (number | null)[] {
  return text.replace(/^v/, '').split('.').map((p) => (p === 'x' || p === '*' || p === '' ? null : Number(p)));
}
const floorOf = (p: (number | null)[]): V => [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0];

/** One comparator of an npm engines range ("^20.17.0", ">= 18.x", "14", "6.*", "*") against `v`. */
function comparator(c: string, v: V): boolean {
  const m = /^(\^|~|>=|<=|>|<|=)?\s*(.*)$/.exec(c.trim())!;
  const op = m[1] ?? '';
  const p = partsOf(m[2]!);
  if (p[0] === null) return true; // "*"
  const f = floorOf(p);
  switch (op) {
    case '>=': return cmp(v, f) >= 0;
    case '>': return cmp(v, f) > 0;
    case '<=': return cmp(v, f) <= 0;
    case '<': return cmp(v, f) < 0;
    case '^': return v[0] === f[0] && cmp(v, f) >= 0;
    case '~': return v[0] === f[0] && v[1] === f[1] && cmp(v, f) >= 0;
    default: return p.every((x, i) => x === null || x === v[i]); // "20.x", "14", "=1.2.3"
  }
}

/** Whether `v` satisfies an npm range: alternatives split by ||, each a set of space-separated comparators. */
export function satisfies(v: V, range: string): boolean {
  return range.split('||').some((alt) => alt.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split(/\s+/).filter(Boolean).every((c) => comparator(c, v)));
}

describe('the Node the docs ask for is enough for every package npm installs', () => {
  it('reads engines ranges as npm does (the forms this lockfile holds)', () => {
    expect(satisfies(NODE_20, '>=20')).toBe(true);
    expect(satisfies(NODE_20, '>= 18.x')).toBe(true);
    expect(satisfies(NODE_20, '>=22.x')).toBe(false);
    expect(satisfies(NODE_20, '^20.19.0 || ^22.12.0 || >=23')).toBe(true);
    expect(satisfies([20, 10, 0], '^20.17.0 || >=22.9.0')).toBe(false);
    expect(satisfies(NODE_20, '20.x || 22.x')).toBe(true);
    expect(satisfies(NODE_20, '>=16 || 14 >=14.17')).toBe(true);
    expect(satisfies([14, 16, 0], '>=16 || 14 >=14.17')).toBe(false);
  });

  it('no production package npm installs asks for a Node newer than 20.19 (the fleet\'s @nats-io/nuid among them)', () => {
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } }> };
    const wanting: string[] = [];
    let read = 0;
    for (const [path, p] of Object.entries(lock.packages)) {
      const range = p.engines?.node;
      if (path === '' || p.dev || range === undefined) continue;
      read++;
      if (!satisfies(NODE_20, range)) wanting.push(`${path.replace(/^.*node_modules\//, '')}@${p.version}: node ${range}`);
    }
    expect(read).toBeGreaterThan(20);
    expect(lock.packages['node_modules/@nats-io/nuid']?.engines?.node).toBeDefined();
    expect(wanting).toEqual([]);
  });
});
