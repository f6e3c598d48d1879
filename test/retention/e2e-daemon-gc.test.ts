/**
 * Issue 15, item 5: "a setting runs it in the daemon between jobs." The real
 * daemon (dist/) on a root whose settings.json has `gc`: it removes the old
 * finished sessions while it serves, leaves the new ones and the job it ran,
 * keeps memory consistent, does not run again before `every_hours` (even
 * across a restart), and takes new settings on SIGHUP.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { MemoryIndex } from '../../src/memory/memory-index.js';
import { dbPathFor, sessionsDirFor } from '../../src/memory/paths.js';
import { removeTempDirs } from '../helpers/temp.js';
import { startDaemon } from '../daemon/spawn.js';
import { age, dumpIndex, runSessions, sessionsIn } from './fixtures.js';
import { afterEach } from 'vitest';

afterEach(removeTempDirs);

const settings = (root: string, gc: unknown) => writeFileSync(join(root, 'settings.json'), JSON.stringify({ settings: 'settings@1', gc }));
const indexed = (root: string): Set<string> => {
  const ix = MemoryIndex.open(dbPathFor(root), { readonly: true });
  try {
    return sessionsIn(dumpIndex(ix.db));
  } finally {
    ix.close();
  }
};

describe('retention in the daemon', () => {
  it('removes old finished sessions between jobs, keeps the new ones, waits every_hours across a restart, and reads new settings on SIGHUP', async () => {
    const { root, ids } = await runSessions(4);
    const [old1, old2, fresh, later] = ids as [string, string, string, string];
    age(root, old1, 3);
    age(root, old2, 2);
    age(root, later, 0.5);
    const ix = MemoryIndex.open(dbPathFor(root));
    ix.ingestDir(sessionsDirFor(root));
    ix.close();
    settings(root, { older_than_days: 1, every_hours: 24 });

    let d = startDaemon(root);
    const gc = await d.waitFor((l) => l.event === 'gc', 30_000);
    expect(gc).toMatchObject({ sessions: 2, more: false });
    const { id: job } = await dropIntoInbox(readFileSync(join(root, 'examples/jobs/why-is-the-disk-full.json')), root);
    await d.waitFor((l) => l.event === 'finished' && l.session === job, 30_000);
    for (const id of [old1, old2]) expect(existsSync(join(root, 'sessions', id)), id).toBe(false);
    for (const id of [fresh, later, job]) expect(existsSync(join(root, 'sessions', id, 'result.json')), id).toBe(true);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    const state = JSON.parse(readFileSync(join(root, 'sessions', '.daemon', 'gc.json'), 'utf8')) as { sessions: number };
    expect(state.sessions).toBe(2);
    const mem = indexed(root);
    expect(mem.has(old1) || mem.has(old2)).toBe(false);
    expect(mem.has(fresh) && mem.has(job)).toBe(true);

    // restarted within every_hours: not due, so `later` (older than 1 day by now) stays
    age(root, later, 5);
    d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const { id: job2 } = await dropIntoInbox(readFileSync(join(root, 'examples/jobs/why-is-the-disk-full.json')), root);
    await d.waitFor((l) => l.event === 'finished' && l.session === job2, 30_000);
    expect(existsSync(join(root, 'sessions', later))).toBe(true);
    expect(d.lines.some((l) => l.event === 'gc')).toBe(false);

    // new settings on SIGHUP are due at the next idle moment
    settings(root, { older_than_days: 4, every_hours: 24 });
    d.child.kill('SIGHUP');
    const second = await d.waitFor((l) => l.event === 'gc', 30_000);
    expect(second).toMatchObject({ sessions: 1 });
    expect(existsSync(join(root, 'sessions', later))).toBe(false);
    expect(existsSync(join(root, 'sessions', fresh))).toBe(true);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 120_000);

  it('a gc run that fails (a damaged month archive) is a warning; jobs still run and the sessions stay', async () => {
    const { root, ids } = await runSessions(1);
    const ended = age(root, ids[0]!, 3);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(root, 'sessions', 'archive'));
    writeFileSync(join(root, 'sessions', 'archive', `${ended.slice(0, 7)}.tar.gz`), 'not gzip');
    settings(root, { older_than_days: 1, archive: true, every_hours: 24 });
    const d = startDaemon(root);
    const warn = await d.waitFor((l) => l.event === 'idle_task', 30_000);
    expect(warn.level).toBe(40);
    expect(String(warn.msg)).toMatch(/retention failed between jobs.*move it aside/);
    const { id: job } = await dropIntoInbox(readFileSync(join(root, 'examples/jobs/why-is-the-disk-full.json')), root);
    await d.waitFor((l) => l.event === 'finished' && l.session === job, 30_000);
    expect(existsSync(join(root, 'sessions', ids[0]!, 'events.jsonl'))).toBe(true);
    expect(d.lines.filter((l) => l.event === 'idle_task')).toHaveLength(1);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 60_000);
});
