/**
 * Issue 21 item 7, the smaller promises of the command line, each through
 * the real compiled CLI (dist/; build first): a typo in a job file gets a
 * did-you-mean and a missing field is named in words; `pico submit` says so
 * when no daemon serves the root; a second daemon on a served root is told
 * which daemon holds the lock, without a stack trace.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRoot } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';
import { picoAsync as pico, startDaemon } from '../daemon/spawn.js';

function jobFile(value: unknown): string {
  const file = join(tempDir('pico-msg-'), 'job.json');
  writeFileSync(file, JSON.stringify(value));
  return file;
}

describe('job files', async () => {
  it('a typo in a job field gets a did-you-mean, at the top level and in a plan step', async () => {
    const root = makeRoot();
    const r = await pico(['run', jobFile({ job: 'job@1', goal: 'is the disk full?', budget_clas: 'interactive', plan: [{ step: 's', tol: 'read_file', capability: 'extract@1', schema: 'disk_usage@1' }] }), '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown field(s) "budget_clas" (did you mean "budget_class"?)');
    expect(r.stderr).toContain('plan.0: unknown field(s) "tol" (did you mean "tool"?)');
  });

  it('a missing field is named in words with the values it may take, not "Invalid option"', async () => {
    const root = makeRoot();
    const r = await pico(['run', jobFile({ job: 'job@1', goal: 'is the disk full?' }), '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the required field "budget_class" is missing (one of "interactive", "attended", "background", "batch")');
    expect(r.stderr).not.toMatch(/Invalid option|received undefined/);
  });

  it('a value that is not one of a field\'s values is named with the values it may take and a did-you-mean, not "Invalid option"', async () => {
    const root = makeRoot();
    const typo = await pico(['run', jobFile({ job: 'job@1', goal: 'is the disk full?', budget_class: 'interactve' }), '--root', root]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('budget_class: "interactve" is not allowed (did you mean "interactive"?) (one of "interactive", "attended", "background", "batch")');
    const other = await pico(['run', jobFile({ job: 'job@1', goal: 'is the disk full?', budget_class: 'fast' }), '--root', root]);
    expect(other.stderr).toContain('budget_class: "fast" is not allowed (one of "interactive", "attended", "background", "batch")');
    for (const r of [typo, other]) expect(r.stderr).not.toMatch(/Invalid option/);
  });
});

describe('the daemon, or none', () => {
  it('pico submit with no daemon still queues the job (exit 0) and says that none serves the root and how to start one', async () => {
    const root = makeRoot();
    const r = await pico(['submit', join(root, 'examples/jobs/why-is-the-disk-full.json'), '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d{8}-\d{6}-/);
    expect(r.stderr).toContain(`no daemon serves ${root} (no daemon was ever started on it)`);
    expect(r.stderr).toContain(`pico daemon --root ${root}`);
    const json = await pico(['submit', join(root, 'examples/jobs/why-is-the-disk-full.json'), '--root', root, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, served: false, unserved: 'no daemon was ever started on it' });
  });

  it('with a daemon serving the root, submit says nothing more; a second daemon is told which one holds the lock, without a stack trace (exit 2)', async () => {
    const root = makeRoot();
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const sub = await pico(['submit', join(root, 'examples/jobs/why-is-the-disk-full.json'), '--root', root, '--json']);
    expect(JSON.parse(sub.stdout)).toMatchObject({ ok: true, served: true });
    const second = await pico(['daemon', '--root', root]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(new RegExp(`another daemon \\(pid ${d.child.pid}\\) already serves this root; stop it first`));
    expect(second.stderr).not.toMatch(/internal error|\n\s+at /);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });
});
