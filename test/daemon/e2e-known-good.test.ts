/**
 * READY without waiting for the session worker when the manifests are a set a worker of this
 * build loaded and compiled, unchanged since (root/manifest-watch.ts, daemon/startup.ts): the real
 * daemon, restarted on its root; a changed manifest is checked by the worker again before READY;
 * and a set recorded as loading that fails after all still stops the daemon with exit 3.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { checkedStamp } from '../../src/root/manifest-watch.js';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from './helpers.js';
import { picoAsync, startDaemon, stopDaemon } from './spawn.js';
import { until } from '../helpers/until.js';

const STAMP = ['sessions', '.daemon', 'manifests.checked'];

describe('READY on manifests known to load', () => {
  it('a restart on the manifests its worker checked is READY without waiting for a worker; a changed manifest is checked again first', async () => {
    const root = tempRoot('pico-known-good-');
    initRoot(root);
    const first = startDaemon(root);
    expect((await first.waitFor((l) => l.event === 'ready')).manifests).toBe('checked by the worker');
    await until('the worker records the manifests it compiled', () => existsSync(join(root, ...STAMP)));
    await stopDaemon(first);

    const second = startDaemon(root);
    const ready = await second.waitFor((l) => l.event === 'ready');
    expect(ready.manifests).toBe('known to load');
    // jobs handed over before the worker is ready wait for it
    const { id } = await dropIntoInbox(readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json')), root);
    // READY did not wait for the worker: what it spent on it is a small part of the worker's own start (a
    // ratio within one run, not a fixed number of ms, so a loaded machine does not make it fail)
    const worker = await second.waitFor((l) => l.event === 'worker_ready', 60_000);
    expect(ready.worker_ms as number).toBeLessThan((worker.spawn_to_ready_ms as number) / 2);
    expect((await second.waitFor((l) => l.event === 'finished' && l.session === id, 60_000)).outcome).toBe('answered');
    await stopDaemon(second);

    const tool = join(root, 'manifests', 'tools', 'read_file.json');
    writeFileSync(tool, `${readFileSync(tool, 'utf8')}\n`);
    const third = startDaemon(root);
    expect((await third.waitFor((l) => l.event === 'ready')).manifests).toBe('checked by the worker');
    await stopDaemon(third);
  }, 120_000);

  it('a set recorded as loading that does not compile after all stops the daemon with exit 3, naming the file and the fix', async () => {
    const root = tempRoot('pico-known-good-');
    initRoot(root);
    const file = join(root, 'manifests', 'schemas', 'thermal@1.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { properties: Record<string, unknown> };
    doc.properties.zone_note = { type: 'strin' };
    writeFileSync(file, JSON.stringify(doc));
    // as if a worker had loaded this very set (a record no worker would write for it)
    mkdirSync(join(root, ...STAMP.slice(0, -1)), { recursive: true });
    writeFileSync(join(root, ...STAMP), checkedStamp(root)!);
    const r = await picoAsync(['daemon', '--root', root]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/"manifests":"known to load"/);
    expect(r.stdout).toMatch(/thermal@1\.json: not a usable JSON Schema[^\n]*fix the schema so it compiles/);
  }, 60_000);
});
