/**
 * Issue 14, item 3: "damaged ledgers are closed, not retried". Damage before
 * the tail of an unfinished ledger is quarantined (the intact prefix kept, the
 * rest set aside beside it) and the session closed with a clear outcome, once;
 * damage the writer never sees (a finished ledger cut at a line boundary, a
 * tampered blob, events after the answer) is reported by `pico check`, and
 * `show`, `replay` and `memory rebuild` report it as damage (exit 1, naming
 * the file and the fix), never as an internal error. Real daemon, real CLI.
 */
import { cpSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from '../daemon/helpers.js';
import { picoAsync as pico, startDaemon } from '../daemon/spawn.js';

/** Run the example job in the foreground; returns its session id. */
async function runExample(root: string): Promise<string> {
  const r = await pico(['run', join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--root', root, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { session_id: string }).session_id;
}

/** Copy session `from` to a new id, its events re-stamped with the new id. */
function copySession(root: string, from: string, to: string): string {
  const src = join(root, 'sessions', from);
  const dst = join(root, 'sessions', to);
  cpSync(src, dst, { recursive: true });
  for (const f of ['events.jsonl', 'result.json']) writeFileSync(join(dst, f), readFileSync(join(dst, f), 'utf8').replaceAll(from, to));
  return dst;
}

const lines = (dir: string): string[] => readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);

describe('damaged ledgers', () => {
  it('every kind of damage before the tail of an unfinished ledger is set aside and the session closed once, with the damage named in result.json', async () => {
    const root = tempRoot('pico-e2e-damage-');
    initRoot(root);
    const template = await runExample(root);
    // unfinished: the answer and everything after the first fact are gone, as after a crash
    const damage: Record<string, (l: string[]) => Buffer> = {
      garbage: (l) => Buffer.from([...l.slice(0, 3), 'this is not an event', ...l.slice(3)].join('\n') + '\n'),
      'repeated seq': (l) => Buffer.from([...l.slice(0, 4), l[3]!, ...l.slice(4)].join('\n') + '\n'),
      'missing seq': (l) => Buffer.from([...l.slice(0, 2), ...l.slice(3)].join('\n') + '\n'),
      'other session': (l) => Buffer.from([...l.slice(0, 2), l[2]!.replace(/"session_id":"[^"]+"/, '"session_id":"20200101-000000-000000000000"'), ...l.slice(3)].join('\n') + '\n'),
      'zeroed block': (l) => Buffer.concat([Buffer.from(l.slice(0, 2).join('\n') + '\n'), Buffer.alloc(l[2]!.length + 1), Buffer.from(l.slice(3).join('\n') + '\n')]),
      'not UTF-8': (l) => Buffer.concat([Buffer.from(l.slice(0, 2).join('\n') + '\n'), Buffer.from(l[2]!.slice(0, 30)), Buffer.from([0xc3, 0x28]), Buffer.from(l[2]!.slice(30) + '\n' + l.slice(3).join('\n') + '\n')]),
    };
    const ids: Record<string, string> = {};
    let n = 0;
    for (const [name, edit] of Object.entries(damage)) {
      const id = `20261201-000000-0000000000${String(++n).padStart(2, '0')}`;
      const dir = copySession(root, template, id);
      rmSync(join(dir, 'result.json'));
      const all = lines(dir);
      const firstFact = all.findIndex((x) => x.includes('"type":"fact_added"'));
      writeFileSync(join(dir, 'events.jsonl'), edit(all.slice(0, firstFact + 2)));
      ids[name] = id;
    }
    const damagedBytes = Object.fromEntries(Object.values(ids).map((id) => [id, readFileSync(join(root, 'sessions', id, 'events.jsonl'))]));

    const d = startDaemon(root);
    for (const [name, id] of Object.entries(ids)) {
      const fin = await d.waitFor((l) => l.event === 'finished' && l.session === id, 30_000);
      expect(['declined', 'partial'], name).toContain(fin.outcome);
      const dir = join(root, 'sessions', id);
      const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { missing: string[] };
      expect(result.missing.join(' '), name).toMatch(/not run: the ledger was damaged at line \d+ \(.+\); its first \d+ events were kept and the rest \(\d+ bytes\) set aside as .*events\.jsonl\.damaged-\d+/);
      const aside = readdirSync(dir).filter((f) => f.startsWith('events.jsonl.damaged-'));
      expect(aside, name).toHaveLength(1);
      const offset = Number(aside[0]!.slice('events.jsonl.damaged-'.length));
      // nothing is thrown away: the kept prefix and the set-aside rest are the damaged file
      expect(Buffer.concat([damagedBytes[id]!.subarray(0, offset), readFileSync(join(dir, aside[0]!))]).equals(damagedBytes[id]!), name).toBe(true);
      expect(d.lines.some((l) => l.level === 50 && l.session === id && /is closed: the ledger was damaged/.test(String(l.msg))), name).toBe(true);
    }
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);

    const again = startDaemon(root);
    await again.waitFor((l) => l.event === 'ready');
    expect(again.lines.filter((l) => Object.values(ids).includes(String(l.session)))).toEqual([]);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    const check = await pico(['check', '--root', root]);
    expect(check.code, check.stdout).toBe(0);
  }, 120_000);

  it('a finished ledger cut at a line boundary, a tampered blob and events after the answer are reported by check, show, replay and memory rebuild, never as internal errors', async () => {
    const root = tempRoot('pico-e2e-cut-');
    initRoot(root);
    const template = await runExample(root);
    expect((await pico(['check', '--root', root])).code).toBe(0);

    const cut = '20261201-000000-0000000000c1';
    const cutDir = copySession(root, template, cut);
    const all = lines(cutDir);
    expect(all.length).toBeGreaterThan(9);
    writeFileSync(join(cutDir, 'events.jsonl'), all.slice(0, 9).join('\n') + '\n');

    const after = '20261201-000000-0000000000c2';
    const afterDir = copySession(root, template, after);
    const last = JSON.parse(lines(afterDir).at(-1)!) as Record<string, unknown>;
    writeFileSync(join(afterDir, 'events.jsonl'), readFileSync(join(afterDir, 'events.jsonl'), 'utf8') + JSON.stringify({ ...last, seq: (last.seq as number) + 1 }) + '\n');

    const check = await pico(['check', '--root', root]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(new RegExp(`DAMAGED ${cut}`));
    expect(check.stdout).toMatch(/the ledger holds no answer: it lost its end \(it has 9 events\)/);
    expect(check.stdout).toMatch(/result\.json cites seq \d+ \(step \w+\), which the ledger no longer holds/);
    expect(check.stdout).toMatch(new RegExp(`DAMAGED ${after}[^\\n]*\\n[^\\n]*1 event\\(s\\) after the answer`));
    expect(check.stdout).toMatch(/fix: /);
    expect(check.stdout).not.toMatch(new RegExp(`DAMAGED ${template}`));
    const json = JSON.parse((await pico(['check', '--root', root, '--json'])).stdout) as { checked: number; damaged: number; sessions: { session: string; problems: { file: string }[] }[] };
    expect(json).toMatchObject({ checked: 3, damaged: 2 });
    expect(json.sessions.find((s) => s.session === cut)!.problems[0]!.file).toMatch(/events\.jsonl$/);

    const show = await pico(['show', cut, '--root', root]);
    expect(show.code).toBe(1);
    expect(show.stdout.split('\n').filter(Boolean)).toHaveLength(9); // the intact events are still shown
    expect(show.stderr).toMatch(new RegExp(`session ${cut} is damaged`));
    expect(show.stderr).toMatch(/events\.jsonl: .*\n\s+fix: /);
    for (const args of [['replay', cut], ['replay', after], ['memory', 'rebuild']]) {
      const r = await pico([...args, '--root', root]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(/damaged/);
      expect(r.stderr, args.join(' ')).toMatch(/events\.jsonl/);
      expect(r.stderr, args.join(' ')).not.toMatch(/internal error/);
    }

    // a blob that no longer hashes to its name (an output over the inline limit is kept as a blob)
    writeFileSync(join(root, 'examples', 'data', 'big.txt'), 'Nov 29 kernel: disk full\n'.repeat(400));
    const bigJob = join(root, 'big.json');
    writeFileSync(bigJob, JSON.stringify({ job: 'job@1', goal: 'summarise the big log', budget_class: 'interactive', plan: [{ step: 'log', tool: 'read_file', args: { path: 'examples/data/big.txt' }, capability: 'extract@1', schema: 'log_summary@2' }] }));
    const big = JSON.parse((await pico(['run', bigJob, '--root', root, '--json'])).stdout) as { session_id: string };
    expect((await pico(['check', big.session_id, '--root', root])).code).toBe(0);
    const blobs = join(root, 'sessions', big.session_id, 'blobs');
    const [blob] = readdirSync(blobs);
    writeFileSync(join(blobs, blob!), 'tampered');
    const tampered = await pico(['check', big.session_id, '--root', root]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/blobs\/[0-9a-f]{64}: the blob's content hashes to [0-9a-f]+…, not to its name/);
    rmSync(join(blobs, blob!));
    expect((await pico(['check', big.session_id, '--root', root])).stdout).toMatch(/a blob the ledger cites is missing/);
  }, 90_000);

  it('a result.json cut short (as a disk that lied leaves it) is rewritten whole from the ledger on the next start, which gains nothing', async () => {
    const root = tempRoot('pico-e2e-cutresult-');
    initRoot(root);
    const id = await runExample(root);
    const dir = join(root, 'sessions', id);
    const whole = readFileSync(join(dir, 'result.json'));
    const ledger = readFileSync(join(dir, 'events.jsonl'));
    expect(whole.length).toBeGreaterThan(4096);
    writeFileSync(join(dir, 'result.json'), whole.subarray(0, 4096));
    expect((await pico(['check', '--root', root])).code).toBe(1);
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'finished' && l.session === id, 30_000);
    expect(readFileSync(join(dir, 'result.json')).equals(whole)).toBe(true);
    expect(readFileSync(join(dir, 'events.jsonl')).equals(ledger)).toBe(true);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect((await pico(['check', '--root', root])).code).toBe(0);
  }, 60_000);
});
