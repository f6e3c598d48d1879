/**
 * Issue 14, item 2: "every accepted job ends". Problems a job file can carry
 * are rejected at intake with a 0600 reason file that never quotes a file it
 * did not read as a job; names the root does not know close the session as
 * declined with the reason in result.json (and are never resumed again);
 * `pico run` reports them as the user's error; `pico watch` ends when the
 * session closes and says so when no daemon serves the root. The real daemon
 * and the real CLI throughout.
 */
import { linkSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReasonFile } from '../../src/daemon/reject.js';
import { picoAsync as pico, readyDaemon, startDaemon, stopDaemon } from '../daemon/spawn.js';
import { makeRoot } from '../helpers/root.js';

type Plan = { step: string; tool?: string; args?: Record<string, unknown>; capability: string; schema: string; from?: string[] }[];

function exampleJob(root: string): { goal: string; plan: Plan } & Record<string, unknown> {
  return JSON.parse(readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), 'utf8')) as { goal: string; plan: Plan };
}

/** JSON text of `{"path": {"d": {"d": … "bottom" …}}}`, `levels` deep (built as text: JSON.stringify would overflow here). */
function deepArgs(levels: number): string {
  return `{"path":${'{"d":'.repeat(levels)}"bottom"${'}'.repeat(levels)}}`;
}

/** The example job with the disk step's args replaced by raw JSON text. */
function withRawArgs(base: { plan: Plan } & Record<string, unknown>, argsJson: string): string {
  const marker = '"__ARGS__"';
  return JSON.stringify({ ...base, plan: base.plan.map((s) => (s.step === 'disk' ? { ...s, args: '__ARGS__' } : s)) }).replace(marker, argsJson);
}

describe('every accepted job ends', () => {
  it('a job naming an unknown tool, capability or schema is rejected at intake with the name and the manifest to add', async () => {
    const root = makeRoot('pico-e2e-names-');
    const inbox = join(root, 'sessions', 'inbox');
    const base = exampleJob(root);
    const bad: Record<string, { plan: Plan; reason: RegExp; fix: RegExp }> = {
      'tool.json': { plan: base.plan.map((s) => (s.step === 'disk' ? { ...s, tool: 'no_such_tool' } : s)), reason: /step disk: unknown tool "no_such_tool" \(known: [^)]*capture_df[^)]*read_file[^)]*\)/, fix: /manifests\/tools\/no_such_tool\.json/ },
      'cap.json': { plan: base.plan.map((s) => (s.step === 'log' ? { ...s, capability: 'nosuch@1' } : s)), reason: /unknown capability "nosuch@1"/, fix: /manifests\/capabilities\/nosuch@1\.json/ },
      'schema.json': { plan: base.plan.map((s) => (s.step === 'log' ? { ...s, schema: 'nosuch@9' } : s)), reason: /unknown schema "nosuch@9"/, fix: /manifests\/schemas\/nosuch@9\.json/ },
    };
    const d = await readyDaemon(root);
    for (const [name, b] of Object.entries(bad)) writeFileSync(join(inbox, name), JSON.stringify({ ...base, plan: b.plan }));
    for (const [name, b] of Object.entries(bad)) {
      const r = await d.waitFor((l) => l.event === 'rejected' && l.file === name, 30_000);
      expect(r.problem).toMatch(b.reason);
      expect(r.fix).toMatch(b.fix);
    }
    expect(readdirSync(join(root, 'sessions')).filter((n) => /^\d{8}-/.test(n))).toEqual([]);
    await stopDaemon(d);
  }, 60_000);

  it('a claimed job whose tool is gone by the time it runs closes as declined with the reason in result.json, pico watch ends, and a restart does not resume it', async () => {
    const root = makeRoot('pico-e2e-ends-');
    const base = exampleJob(root);
    // claimed while the tool still existed (as recovery finds it): job.json and an empty ledger
    const id = '20261201-000000-00000000000a';
    const dir = join(root, 'sessions', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'job.json'), JSON.stringify({ ...base, plan: base.plan.map((s) => (s.step === 'disk' ? { ...s, tool: 'retired_tool' } : s)) }));
    writeFileSync(join(dir, 'events.jsonl'), '');
    const d = startDaemon(root);
    const fin = await d.waitFor((l) => l.event === 'finished' && l.session === id, 30_000);
    expect(fin.outcome).toBe('declined');
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { outcome: string; answer: string; missing: string[] };
    expect(result.outcome).toBe('declined');
    expect(result.missing.join(' ')).toMatch(/the job cannot run on this root: step disk: unknown tool "retired_tool"/);
    expect(result.answer).toMatch(/unknown tool "retired_tool"/);
    const watch = await pico(['watch', id, '--root', root]);
    expect(watch.code).toBe(1);
    expect(watch.stdout).toMatch(/answer_sent\s+outcome=declined/);
    expect(d.lines.filter((l) => l.event === 'failed' || l.event === 'closing')).toEqual([]);
    await stopDaemon(d);

    const again = await readyDaemon(root);
    expect(again.lines.filter((l) => l.event === 'queued' || l.event === 'resumed')).toEqual([]);
    await stopDaemon(again);
    expect((await pico(['check', '--root', root])).code).toBe(0);
  }, 90_000);

  it('a session the runtime fails on is closed with the error as its reason instead of being retried at every start', async () => {
    const root = makeRoot('pico-e2e-fails-');
    // a tool output over the inline limit goes to blobs/, which here is a file: the runtime throws (EEXIST/ENOTDIR)
    writeFileSync(join(root, 'examples', 'data', 'big.txt'), 'Nov 29 kernel: disk full\n'.repeat(400));
    const id = '20261201-000000-00000000000e';
    const dir = join(root, 'sessions', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'job.json'), JSON.stringify({
      job: 'job@1', goal: 'summarise the big log', budget_class: 'interactive',
      plan: [{ step: 'log', tool: 'read_file', args: { path: 'examples/data/big.txt' }, capability: 'extract@1', schema: 'log_summary@2' }],
    }));
    writeFileSync(join(dir, 'events.jsonl'), '');
    writeFileSync(join(dir, 'blobs'), 'not a folder');
    const d = startDaemon(root);
    const closing = await d.waitFor((l) => l.event === 'closing' && l.session === id, 30_000);
    expect(closing.level).toBe(50);
    const fin = await d.waitFor((l) => l.event === 'finished' && l.session === id, 30_000);
    expect(fin.outcome).toBe('declined');
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { outcome: string; missing: string[] };
    expect(result.missing.join(' ')).toMatch(/not run: the runtime failed on this session: .*blobs/);
    await stopDaemon(d);
    const again = await readyDaemon(root);
    expect(again.lines.filter((l) => l.session === id)).toEqual([]);
    await stopDaemon(again);
  }, 90_000);

  it('too deep or too large args, non-UTF-8 bytes and a hard link are rejected at intake with a 0600 reason that quotes nothing unread', async () => {
    const root = makeRoot('pico-e2e-intake-');
    const inbox = join(root, 'sessions', 'inbox');
    const base = exampleJob(root);
    const withArgs = (args: Record<string, unknown>) => JSON.stringify({ ...base, plan: base.plan.map((s) => (s.step === 'disk' ? { ...s, args } : s)) });
    const secret = join(root, 'secret.txt');
    writeFileSync(secret, 'root:$6$SECRETHASH:19000:0:99999:7:::\n');
    const cases: Record<string, RegExp> = {
      'deep.json': /nested deeper than 32 levels/,
      'large.json': /over the 65536-byte limit for one step's arguments/,
      'latin1.json': /byte offset \d+ \(0xe9\) is not valid UTF-8/,
      'surrogate.json': /lone UTF-16 surrogate/,
      'linked.json': /2 hard links: .*not read/,
      'text.json': /not valid JSON \(the syntax breaks at/,
    };
    const d = await readyDaemon(root);
    writeFileSync(join(inbox, 'deep.json'), withRawArgs(base, deepArgs(5000)));
    writeFileSync(join(inbox, 'large.json'), withArgs({ path: 'x'.repeat(100 * 1024) }));
    writeFileSync(join(inbox, 'latin1.json'), Buffer.concat([Buffer.from(JSON.stringify({ ...base, goal: 'caf' }).slice(0, -1)), Buffer.from([0xe9]), Buffer.from('"}')]));
    writeFileSync(join(inbox, 'surrogate.json'), JSON.stringify(base).replace('"Why is', '"\\ud800 Why is'));
    linkSync(secret, join(inbox, 'linked.json'));
    writeFileSync(join(inbox, 'text.json'), readFileSync(secret));
    for (const name of Object.keys(cases)) await d.waitFor((l) => l.event === 'rejected' && l.file === name, 30_000);
    const dir = join(root, 'sessions', 'rejected');
    const reasons = readdirSync(dir).filter((n) => n.endsWith('.reason.json'));
    expect(reasons).toHaveLength(Object.keys(cases).length);
    for (const n of reasons) {
      const text = readFileSync(join(dir, n), 'utf8');
      const r = JSON.parse(text) as ReasonFile;
      expect(r.problem, r.original_name).toMatch(cases[r.original_name]!);
      expect(statSync(join(dir, n)).mode & 0o777, r.original_name).toBe(0o600);
      expect(text, r.original_name).not.toMatch(/SECRET|root:/);
    }
    expect(readFileSync(secret, 'utf8')).toMatch(/SECRETHASH/); // the linked file itself is untouched
    expect(readdirSync(join(root, 'sessions')).filter((n) => /^\d{8}-/.test(n))).toEqual([]); // nothing was accepted
    await stopDaemon(d);
  }, 60_000);

  it('pico run and pico call report names the root does not know, too-deep args and non-UTF-8 as the user\'s error (exit 2), never as an internal error', async () => {
    const root = makeRoot('pico-e2e-run-');
    const base = exampleJob(root);
    const file = (name: string, body: string | Buffer) => {
      const p = join(root, name);
      writeFileSync(p, body);
      return p;
    };
    const runs: Record<string, { path: string; message: RegExp }> = {
      tool: { path: file('tool.json', JSON.stringify({ ...base, plan: base.plan.map((s) => (s.step === 'disk' ? { ...s, tool: 'nope' } : s)) })), message: /unknown tool "nope"/ },
      capability: { path: file('cap.json', JSON.stringify({ ...base, plan: base.plan.map((s) => (s.step === 'log' ? { ...s, capability: 'zzz@1' } : s)) })), message: /unknown capability "zzz@1"/ },
      deep: { path: file('deep.json', withRawArgs(base, deepArgs(5000))), message: /nested deeper/ },
      latin1: { path: file('latin1.json', Buffer.concat([Buffer.from('{"job":"job@1","goal":"caf'), Buffer.from([0xe9]), Buffer.from('"}')])), message: /byte offset 26 \(0xe9\) is not valid UTF-8/ },
    };
    for (const [name, r] of Object.entries(runs)) {
      const out = await pico(['run', r.path, '--root', root]);
      expect(out.code, `${name}: ${out.stderr}`).toBe(2);
      expect(out.stderr, name).toMatch(r.message);
      expect(out.stderr, name).not.toMatch(/internal error/);
    }
    // pico submit applies the daemon's rules before anything reaches the inbox
    const submitted = await pico(['submit', runs.tool!.path, '--root', root]);
    expect(submitted.code).toBe(2);
    expect(submitted.stderr + submitted.stdout).toMatch(/unknown tool "nope"/);
    expect(readdirSync(join(root, 'sessions', 'inbox'))).toEqual([]);
    const input = join(root, 'examples', 'data', 'syslog.txt');
    for (const [args, message] of [
      [['call', 'extract@1', '--schema', 'log_summary@2', '--input', input, '--provider', 'nope'], /unknown provider "nope"/],
      [['call', 'extract@9', '--schema', 'log_summary@2', '--input', input], /unknown capability "extract@9"/],
      [['call', 'extract@1', '--schema', 'nope@1', '--input', input], /unknown schema "nope@1"/],
    ] as const) {
      const out = await pico([...args, '--root', root]);
      expect(out.code, out.stderr).toBe(2);
      expect(out.stderr).toMatch(message);
    }
    expect(readdirSync(join(root, 'sessions')).filter((n) => /^\d{8}-/.test(n))).toEqual([]);
  }, 60_000);

  it('pico watch says so and ends when no daemon serves the root', async () => {
    const root = makeRoot('pico-e2e-watch-');
    const id = '20261201-000000-0000000000ff';
    writeFileSync(join(root, 'sessions', 'inbox', `${id}.json`), JSON.stringify(exampleJob(root)));
    const out = await pico(['watch', id, '--root', root]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/no daemon serves .*no daemon was ever started.*pico daemon --root/s);
  }, 30_000);
});
