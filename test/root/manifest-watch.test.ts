/**
 * A long-running runtime looks at its manifests before a session only when a watch on their
 * folders saw something move, or its last look is a second old (src/root/manifest-watch.ts).
 * Real folders, real inotify watches; a manifest edited in place, one added in a folder made
 * after the runtime opened, and the safety net for changes no watch reports.
 */
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManifestWatch, SAFETY_NET_MS } from '../../src/root/manifest-watch.js';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { makeRoot } from '../helpers/root.js';
import { until } from '../helpers/until.js';

/** below the safety net, so what is awaited can only have been heard by the watch */
const HEARD_WITHIN_MS = SAFETY_NET_MS - 100;
const watches: ManifestWatch[] = [];
let rt: Runtime | null = null;
afterEach(async () => {
  for (const w of watches.splice(0)) w.close();
  await rt?.close();
  rt = null;
});

function watching(root: string, now?: () => number): ManifestWatch {
  const w = new ManifestWatch(root, now);
  watches.push(w);
  w.looking();
  w.follow();
  return w;
}

describe('the manifest watch', () => {
  it('is not due after a look until a manifest is edited in place', async () => {
    const root = makeRoot();
    const w = watching(root);
    expect(w.due()).toBe(false);
    appendFileSync(join(root, 'manifests', 'tools', 'read_file.json'), '\n');
    await until('the watch hears the edit', () => w.due(), HEARD_WITHIN_MS, 5);
  });

  it('hears a manifest dropped into a folder made after it started', async () => {
    const root = makeRoot();
    rmSync(join(root, 'manifests', 'lexicon'), { recursive: true, force: true });
    const w = watching(root);
    mkdirSync(join(root, 'manifests', 'lexicon'));
    await until('the watch hears the new folder', () => w.due(), HEARD_WITHIN_MS, 5);
    w.looking();
    w.follow();
    expect(w.due()).toBe(false);
    writeFileSync(join(root, 'manifests', 'lexicon', 'extra.json'), '{}');
    await until('the watch hears the file in the new folder', () => w.due(), HEARD_WITHIN_MS, 5);
  });

  it('is due again after the safety net, with nothing heard', () => {
    let now = 0;
    const w = watching(makeRoot(), () => now);
    now += SAFETY_NET_MS - 1;
    expect(w.due()).toBe(false);
    now += 1;
    expect(w.due()).toBe(true);
  });
});

describe('a runtime that watches its manifests', () => {
  it('runs the next session on a provider manifest changed in place, and on the old set while nothing moved', async () => {
    const root = makeRoot();
    rt = await openRuntime(root, { watchManifests: true });
    await rt.refresh();
    const before = rt.currentComposition().hash;
    await rt.refresh();
    expect(rt.currentComposition().hash).toBe(before);
    const file = join(root, 'manifests', 'providers', 'disk-usage-parser.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"max_input_bytes": 262144', '"max_input_bytes": 131072'));
    await until('the runtime takes the changed manifest', async () => {
      await rt!.refresh();
      return rt!.currentComposition().hash !== before;
    }, HEARD_WITHIN_MS, 5);
  });
});
