/**
 * The docs' example files, run for real: each example file of every page
 * (marked `<!-- file: PATH -->`, see readme.ts) is written into a fresh root
 * made by the compiled `pico init`, and the worked example of
 * docs/manifests.md (its `<!-- run -->` block) runs in it with the compiled
 * CLI — the manifests check, the shell provider answering through `pico
 * call`, the job answering through `pico run`, the playbook planning a goal,
 * the eval case file and the policy file — and what each printed is checked.
 * The settings, approval and decision examples of docs/operating.md are read
 * by the real daemon. Needs `npm run build` first.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/daemon/settings.js';
import { readLedgerText } from '../../src/ledger/ledger.js';
import { MAIN_JS, startDaemon } from '../daemon/spawn.js';
import { page, runLines } from './readme.js';
import { exampleRoot, FILES, sh } from './example-root.js';
import { userName } from '../../src/base/user-name.js';

const WORKED = page('docs/manifests.md');

describe('the docs\' example files and the worked example of docs/manifests.md', () => {
  it('has an example file for every kind of file it documents, and a run block', () => {
    const kinds = [...FILES.keys()].map((p) => p.replace(/[^/]+$/, ''));
    for (const dir of ['manifests/tools/', 'manifests/schemas/', 'manifests/capabilities/', 'manifests/providers/', 'providers/', 'prompts/', 'manifests/playbooks/', 'sessions/SESSION/approvals/']) {
      expect(kinds, `an example under ${dir}`).toContain(dir);
    }
    for (const f of ['settings.json', 'approval.json', 'dir-size-job.json', 'shell-first.json', 'dir-size-cases.json']) expect(FILES.has(f), f).toBe(true);
    expect(runLines(WORKED).length).toBeGreaterThanOrEqual(5);
  });

  it('runs as written: the manifests check passes, the shell provider answers, the job answers, the playbook plans, eval and the policy replay run', async () => {
    const root = exampleRoot();
    const out: Record<string, string> = {};
    for (const l of runLines(WORKED)) {
      const r = await sh(root, l.command);
      expect(r.code, `docs/manifests.md line ${l.line}: ${l.command}\n${r.stdout}\n${r.stderr}`).toBe(l.expectExit);
      out[l.command.split(' ').slice(0, 2).join(' ')] = r.stdout;
    }
    expect(out['pico manifests']).toMatch(/^ok: /);
    // the shell provider's answer, validated by the ladder (x-extractive: the path is in the input)
    expect(out['pico call']).toContain('"kilobytes": 48');
    expect(out['pico call']).toContain('"path": "/srv/photos"');
    // the job answered, with the fact from the example tool and provider
    // in the words of the schema's x-sentence; du read everything, so the second sentence is not said
    expect(out['pico run']).toMatch(new RegExp(`^"${join(root, 'examples', 'data').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" takes \\d+\\.\\d (KiB|MiB)\\.$`, 'm'));
    expect(out['pico run']).not.toMatch(/produced a|could not read/);
    const session = readdirSync(join(root, 'sessions')).find((n) => /^\d{8}-/.test(n) && readFileSync(join(root, 'sessions', n, 'job.json'), 'utf8').includes('How much space does examples/data take?'))!;
    const result = JSON.parse(readFileSync(join(root, 'sessions', session, 'result.json'), 'utf8')) as { outcome: string; facts: { step: string; provider: string; fact: { path: string; kilobytes: number } }[] };
    expect(result.outcome).toBe('answered');
    const size = result.facts.find((f) => f.step === 'size')!;
    expect(size.provider).toBe('dir-size');
    expect(size.fact.path).toBe(join(root, 'examples', 'data'));
    expect(Number.isInteger(size.fact.kilobytes)).toBe(true);
    // the playbook planned the goal, through the example tool, with the slot from the goal
    expect(out['pico plan']).toMatch(/dir_size: dir_size \{"path":"\/var\/log"\}/);
    // both eval cases right under the ladder, and the policy replay compared the session
    expect(out['pico eval']).toMatch(/^ladder\s+1\.000\s+2\/2/m);
    expect(out['pico replay']).toContain(session);
  }, 120_000);

  it('says a new schema must be listed in its capability: without the capability example the check fails naming the fix', async () => {
    const root = exampleRoot((p) => p.startsWith('manifests/capabilities/'));
    const r = await sh(root, 'pico manifests check --root DIR');
    expect(r.code).toBe(3);
    expect(r.stdout + r.stderr).toContain('the reducer extract@1 does not produce "dir_size@1"');
    expect(r.stdout + r.stderr).toContain('add "dir_size@1" to "schemas" in manifests/capabilities/extract@1.json');
  });

  it('the example shell provider fails as the contract says: bad input is a tool_failed carrying its exit code and stderr, tried twice', async () => {
    const root = exampleRoot();
    writeFileSync(join(root, 'not-du.txt'), 'hello world\n');
    const r = await sh(root, 'pico call extract@1 --schema dir_size@1 --provider dir-size --input not-du.txt --root DIR --json');
    expect(r.code).toBe(1);
    const v = JSON.parse(r.stdout) as { ok: boolean; error: string; session: string };
    expect(v.ok).toBe(false);
    expect(v.error).toContain('failed with exit code 2; stderr: dir-size.sh: the input is not one du -s -k line');
    // tried twice, each a tool_failed event carrying the exit code and stderr
    const events = readLedgerText(readFileSync(join(root, 'sessions', v.session, 'events.jsonl'), 'utf8'), v.session).events;
    const failed = events.filter((e) => e.type === 'tool_failed') as unknown as { attempt: number; error: string }[];
    expect(failed.map((e) => e.attempt)).toEqual([1, 2]);
    for (const e of failed) expect(e.error).toContain('dir-size.sh: the input is not one du -s -k line');
  });

  it('the settings, approval.json and decision examples are read by the real daemon: the destructive step runs once the decision file is written', async () => {
    const root = exampleRoot();
    expect(loadSettings(root)).toMatchObject({ present: true, settings: { worker_idle_ms: 30_000, low_disk_mb: 512, gc: { older_than_days: 90, archive: true, every_hours: 24 }, listen: null } });
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const submitted = await sh(root, 'pico submit examples/jobs/prune-the-log-archive.json --root DIR');
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = /\d{8}-\d{6}-[0-9a-f]+/.exec(submitted.stdout)![0];
    await d.waitFor((l) => l.event === 'waiting_approval' && l.session === id);
    const [rel, body] = [...FILES].find(([p]) => p.includes('SESSION'))!;
    const decision = join(root, rel.replace('SESSION', id));
    mkdirSync(dirname(decision), { recursive: true, mode: 0o700 });
    writeFileSync(`${decision}.tmp`, body, { mode: 0o600 });
    spawnSync('mv', [`${decision}.tmp`, decision]);
    await d.waitFor((l) => l.event === 'finished' && l.session === id, 30_000);
    const result = JSON.parse(readFileSync(join(root, 'sessions', id, 'result.json'), 'utf8')) as { outcome: string; answer: string };
    expect(result.outcome).toBe('answered');
    // the answer says what went and what stayed (prune_result@1), by name
    expect(result.answer).toMatch(/^Removed 2 files from "[^"]*\/examples\/archive" \([^)]+\): "app\.log\.\d", "app\.log\.\d"; kept the newest 3 of 5: /);
    const events = readLedgerText(readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8'), id).events;
    // `by` is the decision file's owner (this process's user), not the example's text
    expect(events.find((e) => e.type === 'approval_granted')).toMatchObject({ step: 'prune', by: userName(process.geteuid!()) ?? `uid ${process.geteuid!()}` });
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 60_000);

  it('a settings.json with a wrong field stops the daemon at start with exit 3, as docs/operating.md says', () => {
    const root = exampleRoot();
    writeFileSync(join(root, 'settings.json'), JSON.stringify({ settings: 'settings@1', grace_ms: -1 }));
    const r = spawnSync(process.execPath, [MAIN_JS, 'daemon', '--root', root], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('grace_ms');
  });
});
