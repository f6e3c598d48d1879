/**
 * Issue 15, item 5: "`pico gc --older-than 30d [--dry-run]` removes (or
 * archives to one compressed file per month) finished sessions and keeps the
 * memory index consistent with what remains." Real roots, real sessions run
 * by the runtime, the real SQLite index, real `tar` to read the archives.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryIndex } from '../../src/memory/memory-index.js';
import { dbPathFor, sessionsDirFor } from '../../src/memory/paths.js';
import { collectGarbage } from '../../src/retention/gc.js';
import { moveToTrash } from '../../src/retention/remove.js';
import { sessionsDiskUse } from '../../src/retention/disk-use.js';
import { age, DAY, dumpIndex, runSessions, sessionsIn, shippedJob } from './fixtures.js';
import { tempDir } from '../helpers/temp.js';

const ingest = (root: string): void => {
  const ix = MemoryIndex.open(dbPathFor(root));
  try {
    ix.ingestDir(sessionsDirFor(root));
  } finally {
    ix.close();
  }
};
const dump = (root: string): Record<string, unknown[]> => {
  const ix = MemoryIndex.open(dbPathFor(root), { readonly: true });
  try {
    return dumpIndex(ix.db);
  } finally {
    ix.close();
  }
};
/** Every path under a folder with its bytes (files) or kind, for "nothing changed" checks. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string, rel: string): void => {
    const st = lstatSync(p);
    if (st.isDirectory()) {
      out[rel + '/'] = 'dir';
      for (const n of readdirSync(p)) walk(join(p, n), `${rel}/${n}`);
    } else out[rel] = readFileSync(p).toString('base64');
  };
  walk(dir, '');
  return out;
}
const tar = (args: string[], cwd?: string) => spawnSync('tar', args, { encoding: 'utf8', cwd });

describe('pico gc', () => {
  it('removes finished sessions older than the cutoff and keeps newer, unfinished and waiting ones, the spool and the daemon folder', async () => {
    const { root, ids } = await runSessions(4);
    const [old1, old2, fresh, unfinished] = ids as [string, string, string, string];
    age(root, old1, 40);
    age(root, old2, 31);
    age(root, fresh, 29);
    // as if it were queued, running or waiting for approval: no result.json, and an ancient ledger
    const { rmSync, utimesSync } = await import('node:fs');
    rmSync(join(root, 'sessions', unfinished, 'result.json'));
    const past = new Date(Date.now() - 400 * DAY);
    utimesSync(join(root, 'sessions', unfinished, 'events.jsonl'), past, past);
    writeFileSync(join(root, 'sessions', 'inbox', 'waiting.json'), '{}');
    utimesSync(join(root, 'sessions', 'inbox', 'waiting.json'), past, past);
    mkdirSync(join(root, 'sessions', '.daemon'), { recursive: true });
    writeFileSync(join(root, 'sessions', '.daemon', 'status.json'), '{}');
    const r = await collectGarbage({ root, olderThanMs: 30 * DAY, archive: false, dryRun: false });
    expect(r.items.map((i) => i.name).sort()).toEqual([old1, old2].sort());
    expect(r.sessions).toBe(2);
    expect(r.bytes).toBeGreaterThan(0);
    const left = readdirSync(join(root, 'sessions'));
    expect(left).not.toContain(old1);
    expect(left).not.toContain(old2);
    expect(left).toEqual(expect.arrayContaining([fresh, unfinished, 'inbox', '.daemon']));
    expect(existsSync(join(root, 'sessions', 'inbox', 'waiting.json'))).toBe(true);
    expect(existsSync(join(root, 'sessions', '.trash')) ? readdirSync(join(root, 'sessions', '.trash')) : []).toEqual([]);
  }, 60_000);

  it('a dry run lists what would go and the bytes it would free, and changes nothing on disk', async () => {
    const { root, ids } = await runSessions(2);
    age(root, ids[0]!, 10);
    ingest(root);
    const before = tree(root);
    const r = await collectGarbage({ root, olderThanMs: 5 * DAY, archive: true, dryRun: true });
    expect(r.items).toHaveLength(1);
    expect(r.items[0]).toMatchObject({ kind: 'session', name: ids[0] });
    expect(r.items[0]!.archive).toMatch(/sessions\/archive\/\d{4}-\d{2}\.tar\.gz$/);
    expect(r.bytes).toBe(r.items[0]!.bytes);
    expect(r.bytes).toBeGreaterThan(0);
    expect(tree(root)).toEqual(before);
  }, 60_000);

  it('the bytes a removal promises are the bytes sessions/ shrinks by', async () => {
    const { root, ids } = await runSessions(3);
    for (const id of ids.slice(0, 2)) age(root, id, 3);
    const before = sessionsDiskUse(root);
    const dry = await collectGarbage({ root, olderThanMs: DAY, archive: false, dryRun: true });
    await collectGarbage({ root, olderThanMs: DAY, archive: false, dryRun: false });
    const after = sessionsDiskUse(root);
    expect(before.sessions - after.sessions).toBe(2);
    // the trash folder gc made stays (one empty folder's blocks)
    const trashBytes = lstatSync(join(root, 'sessions', '.trash')).blocks * 512;
    expect(before.bytes - after.bytes + trashBytes).toBe(dry.bytes);
  }, 60_000);

  it('after gc the memory index holds no row of a removed session and equals `pico memory rebuild` over what remains', async () => {
    const { root, ids } = await runSessions(3);
    await runSessions(2, root, () => shippedJob('why-is-the-disk-full-goal-only.json'));
    const all = readdirSync(join(root, 'sessions')).filter((n) => /^\d{8}-/.test(n)).sort();
    expect(all).toHaveLength(5);
    // a planned session and a goal-only one (ids made in the same second sort by their random part, not by age)
    const gone = [ids[0]!, all.find((id) => !ids.includes(id))!];
    for (const id of gone) age(root, id, 60);
    ingest(root);
    const full = dump(root);
    for (const id of gone) expect(sessionsIn(full), 'the index had rows of the sessions gc removes').toContain(id);
    expect(full.trajectory!.length, 'goal-only sessions give trajectory rows').toBeGreaterThan(0);
    await collectGarbage({ root, olderThanMs: 30 * DAY, archive: false, dryRun: false });
    const after = dump(root);
    for (const id of gone) expect(sessionsIn(after)).not.toContain(id);
    expect(after.fact_fts!.every((r) => !String(r).includes('"session":null'))).toBe(true);
    const ix = MemoryIndex.open(dbPathFor(root));
    try {
      ix.rebuild(sessionsDirFor(root));
    } finally {
      ix.close();
    }
    expect(dump(root)).toEqual(after);
    expect(sessionsIn(after).size).toBe(3);
  }, 90_000);

  it('--archive writes one tar.gz per month that tar lists and extracts byte for byte, and a second run adds to the month without losing the first', async () => {
    const { root, ids } = await runSessions(3);
    const month = (d: string) => d.slice(0, 7);
    const e0 = age(root, ids[0]!, 70);
    const e1 = age(root, ids[1]!, 40);
    const originals = Object.fromEntries(ids.map((id) => [id, tree(join(root, 'sessions', id))]));
    const first = await collectGarbage({ root, olderThanMs: 60 * DAY, archive: true, dryRun: false });
    expect(first.archives).toEqual([join(root, 'sessions', 'archive', `${month(e0)}.tar.gz`)]);
    // the second session ends in the first one's month: a second run must add to that archive
    const doc = JSON.parse(readFileSync(join(root, 'sessions', ids[1]!, 'result.json'), 'utf8')) as { ended_at: string };
    doc.ended_at = new Date(Date.parse(e0) + 1000).toISOString();
    writeFileSync(join(root, 'sessions', ids[1]!, 'result.json'), JSON.stringify(doc, null, 2) + '\n');
    originals[ids[1]!] = tree(join(root, 'sessions', ids[1]!));
    void e1;
    const second = await collectGarbage({ root, olderThanMs: 60 * DAY, archive: true, dryRun: false });
    expect(second.archives).toEqual(first.archives);
    const archive = first.archives[0]!;
    const listed = tar(['tzf', archive]);
    expect(listed.status, listed.stderr).toBe(0);
    const names = listed.stdout.split('\n').filter(Boolean);
    expect(names).toContain(`${ids[0]}/events.jsonl`);
    expect(names).toContain(`${ids[1]}/result.json`);
    expect(names.some((n) => n.startsWith(ids[2]!))).toBe(false);
    expect(new Set(names).size).toBe(names.length);
    const out = tempDir('pico-gc-x-');
    const x = tar(['xzf', archive, '-C', out]);
    expect(x.status, x.stderr).toBe(0);
    for (const id of ids.slice(0, 2)) expect(tree(join(out, id))).toEqual(originals[id]);
    expect(existsSync(join(root, 'sessions', ids[0]!))).toBe(false);
    expect(existsSync(join(root, 'sessions', ids[2]!))).toBe(true);
  }, 90_000);

  it('a session already in its month archive (a run that crashed before removing it) is replaced there, never duplicated', async () => {
    const { root, ids } = await runSessions(1);
    age(root, ids[0]!, 50);
    const { cpSync } = await import('node:fs');
    const copy = tempDir('pico-gc-copy-');
    cpSync(join(root, 'sessions', ids[0]!), join(copy, ids[0]!), { recursive: true });
    const r = await collectGarbage({ root, olderThanMs: 30 * DAY, archive: true, dryRun: false });
    cpSync(join(copy, ids[0]!), join(root, 'sessions', ids[0]!), { recursive: true }); // as if the removal never happened
    await collectGarbage({ root, olderThanMs: 30 * DAY, archive: true, dryRun: false });
    const names = tar(['tzf', r.archives[0]!]).stdout.split('\n').filter(Boolean);
    expect(names.filter((n) => n === `${ids[0]}/events.jsonl`)).toHaveLength(1);
  }, 60_000);

  it('a removal interrupted after the rename into the trash is finished by the next run, memory rows included', async () => {
    const { root, ids } = await runSessions(2);
    ingest(root);
    const sessionsDir = join(root, 'sessions');
    moveToTrash(sessionsDir, 'session', ids[0]!, [join(sessionsDir, ids[0]!)]); // then the power went out
    expect(sessionsIn(dump(root))).toContain(ids[0]);
    const r = await collectGarbage({ root, olderThanMs: 365 * DAY, archive: false, dryRun: false });
    expect(r.finished_leftovers).toBe(1);
    expect(r.sessions).toBe(0);
    expect(readdirSync(join(sessionsDir, '.trash'))).toEqual([]);
    expect([...sessionsIn(dump(root))]).toEqual([ids[1]]);
  }, 60_000);

  it('an archive temp file left by a crash is removed and the archive stays whole', async () => {
    const { root, ids } = await runSessions(2);
    age(root, ids[0]!, 50);
    const r = await collectGarbage({ root, olderThanMs: 30 * DAY, archive: true, dryRun: false });
    const archive = r.archives[0]!;
    const stray = join(root, 'sessions', 'archive', `.${archive.split('/').pop()}.dead.tmp`);
    writeFileSync(stray, 'half an archive');
    const before = readFileSync(archive);
    await collectGarbage({ root, olderThanMs: 30 * DAY, archive: true, dryRun: false });
    expect(existsSync(stray)).toBe(false);
    expect(readFileSync(archive).equals(before)).toBe(true);
  }, 60_000);

  it('a damaged month archive is left as it is, names the fix, and the sessions stay', async () => {
    const { root, ids } = await runSessions(1);
    const ended = age(root, ids[0]!, 50);
    mkdirSync(join(root, 'sessions', 'archive'));
    const archive = join(root, 'sessions', 'archive', `${ended.slice(0, 7)}.tar.gz`);
    writeFileSync(archive, 'this is not gzip');
    await expect(collectGarbage({ root, olderThanMs: 30 * DAY, archive: true, dryRun: false })).rejects.toThrow(/cannot be read.*move it aside/);
    expect(readFileSync(archive, 'utf8')).toBe('this is not gzip');
    expect(existsSync(join(root, 'sessions', ids[0]!, 'events.jsonl'))).toBe(true);
    expect(readdirSync(join(root, 'sessions', 'archive'))).toEqual([archive.split('/').pop()]);
  }, 60_000);

  it('a session whose result.json does not parse is kept and reported, not guessed at', async () => {
    const { root, ids } = await runSessions(1);
    writeFileSync(join(root, 'sessions', ids[0]!, 'result.json'), '{"result": "result@1", "ended_at": "2001-');
    const r = await collectGarbage({ root, olderThanMs: DAY, archive: false, dryRun: false });
    expect(r.sessions).toBe(0);
    expect(r.kept).toEqual([{ name: ids[0], why: expect.stringMatching(/not whole JSON/) }]);
    expect(existsSync(join(root, 'sessions', ids[0]!))).toBe(true);
  }, 60_000);

  it('old rejected entries go with their reason files; newer ones stay', async () => {
    const { root } = await runSessions(0);
    const rej = join(root, 'sessions', 'rejected');
    const reason = (name: string, daysAgo: number) => {
      writeFileSync(join(rej, name), 'garbage');
      writeFileSync(join(rej, `${name}.reason.json`), JSON.stringify({ reason: 'rejected@1', original_name: name, stored_as: name, problem: 'x', fix: 'y', at: new Date(Date.now() - daysAgo * DAY).toISOString() }));
    };
    reason('old.json', 40);
    reason('new.json', 2);
    const r = await collectGarbage({ root, olderThanMs: 30 * DAY, archive: true, dryRun: false });
    expect(r.rejected).toBe(1);
    expect(readdirSync(rej).sort()).toEqual(['new.json', 'new.json.reason.json']);
    const names = tar(['tzf', r.archives[0]!]).stdout.split('\n').filter(Boolean).sort();
    expect(names).toEqual(['rejected/old.json', 'rejected/old.json.reason.json']);
  }, 60_000);

  it('an aborted signal stops a run before it removes anything and says more remain', async () => {
    const { root, ids } = await runSessions(2);
    for (const id of ids) age(root, id, 50);
    const ac = new AbortController();
    ac.abort();
    const r = await collectGarbage({ root, olderThanMs: DAY, archive: false, dryRun: false, signal: ac.signal });
    expect(r).toMatchObject({ sessions: 0, more: true });
    const limited = await collectGarbage({ root, olderThanMs: DAY, archive: false, dryRun: false, limit: 1 });
    expect(limited).toMatchObject({ sessions: 1, more: true });
    expect(ids.filter((id) => existsSync(join(root, 'sessions', id)))).toHaveLength(1);
  }, 60_000);
});
