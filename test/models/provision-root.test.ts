/**
 * Issue 15, item 6: "`provision` measures 1 to N threads and keeps the
 * fastest, writes its temp files inside the root with unique names, and
 * leaves nothing behind when it fails"; models live in the root's models/.
 * Real stories260K, real node-llama-cpp, real folders.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as provision } from '../../src/cli/provision.js';
import { tempDir } from '../helpers/temp.js';
import { HAVE_MODELS, makeRoot, STORIES, STORIES_SHA } from './helpers.js';

/** Every path under a folder with its content hash (files) or kind, mode and size. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string, rel: string): void => {
    const st = lstatSync(p);
    if (st.isDirectory()) {
      out[`${rel}/`] = `dir ${st.mode}`;
      for (const n of readdirSync(p)) walk(path.join(p, n), `${rel}/${n}`);
    } else out[rel] = `${st.mode} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`;
  };
  walk(dir, '');
  return out;
}
const measureTemps = (): string[] => readdirSync(os.tmpdir()).filter((n) => n.startsWith('pico-measure-'));
/** Run provision, capturing what it prints. */
async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((c: string) => ((out += c), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string) => ((err += c), true)) as typeof process.stderr.write;
  try {
    return { code: await provision(args), out, err };
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
}

describe.skipIf(!HAVE_MODELS)('pico provision into a root', () => {
  it('measures 1 to N threads (N = the CPU count), keeps the fastest, and leaves no temp file in the root or /tmp', async () => {
    const root = makeRoot();
    const before = measureTemps();
    const r = await run([STORIES, '--id', 'tiny', '--implements', 'extract@1', '--root', root, '--prompt', 'tiny-note', '--json']);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as { threads: number; threads_measured: { threads: number; decode_tokens_per_s: number | null }[] };
    expect(doc.threads_measured.map((t) => t.threads)).toEqual(Array.from({ length: os.availableParallelism() }, (_, i) => i + 1));
    const fastest = doc.threads_measured.reduce((a, b) => ((b.decode_tokens_per_s ?? -1) > (a.decode_tokens_per_s ?? -1) ? b : a));
    expect(doc.threads).toBe(fastest.threads);
    const m = JSON.parse(readFileSync(path.join(root, 'manifests/providers/tiny.json'), 'utf8')) as { threads: number; file: string; cost: { decode_tokens_per_s: number } };
    expect(m.threads).toBe(fastest.threads);
    expect(m.cost.decode_tokens_per_s).toBeGreaterThan(0);
    console.log(`[provision] threads table: ${JSON.stringify(doc.threads_measured)}`);
    expect(existsSync(path.join(root, '.tmp'))).toBe(false);
    expect(readdirSync(path.join(root, 'models'))).toEqual(['stories260K.gguf']);
    expect(measureTemps()).toEqual(before);
  }, 180_000);

  it('brings the file into models/ (a link or a copy with the pinned hash), points the manifest at models/…, and reuses it on a second provision', async () => {
    const root = makeRoot();
    const first = await run([STORIES, '--id', 'tiny', '--implements', 'extract@1', '--root', root, '--no-probe', '--json']);
    expect(first.code, first.err).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({ file: 'models/stories260K.gguf', placed: expect.stringMatching(/^(hard link|copy)$/) });
    const placed = path.join(root, 'models/stories260K.gguf');
    expect(createHash('sha256').update(readFileSync(placed)).digest('hex')).toBe(STORIES_SHA);
    expect(statSync(placed).size).toBe(statSync(STORIES).size);
    const again = await run([STORIES, '--id', 'tiny2', '--implements', 'extract@1', '--root', root, '--no-probe', '--json']);
    expect(JSON.parse(again.out)).toMatchObject({ file: 'models/stories260K.gguf', placed: 'already there' });
    const inPlace = await run([placed, '--id', 'tiny3', '--implements', 'extract@1', '--root', root, '--no-probe', '--json']);
    expect(JSON.parse(inPlace.out)).toMatchObject({ file: 'models/stories260K.gguf', placed: 'in place' });
    expect(readdirSync(path.join(root, 'models'))).toEqual(['stories260K.gguf']);
  }, 60_000);

  it('a file of the same name but other content in models/ is refused, naming the fix, and both files stay', async () => {
    const root = makeRoot();
    const other = path.join(tempDir('pico-other-'), 'stories260K.gguf');
    writeFileSync(other, Buffer.concat([Buffer.from('GGUF'), readFileSync(STORIES).subarray(4, 600_000)]));
    expect((await run([STORIES, '--id', 'tiny', '--implements', 'extract@1', '--root', root, '--no-probe'])).code).toBe(0);
    const r = await run([other, '--id', 'other', '--implements', 'extract@1', '--root', root, '--no-probe']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/already exists with other content; rename/);
    expect(existsSync(path.join(root, 'manifests/providers/other.json'))).toBe(false);
    expect(readdirSync(path.join(root, 'models'))).toEqual(['stories260K.gguf']);
  }, 60_000);

  it('a provision that fails mid-way (a GGUF cut short: its metadata reads, its weights do not load) leaves the root byte for byte as before', async () => {
    const root = makeRoot();
    expect(existsSync(path.join(root, 'models')), 'a root made before models/ existed: the folder must not stay behind either').toBe(false);
    const cut = path.join(tempDir('pico-cut-'), 'cut.gguf');
    writeFileSync(cut, readFileSync(STORIES).subarray(0, 600_000));
    const before = snapshot(root);
    const temps = measureTemps();
    const r = await run([cut, '--id', 'cut', '--implements', 'extract@1', '--root', root, '--prompt', 'tiny-note', '--threads', '1']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/measuring .*cut\.gguf.* failed|cannot|failed/);
    expect(snapshot(root)).toEqual(before);
    expect(measureTemps()).toEqual(temps);
  }, 120_000);
});
