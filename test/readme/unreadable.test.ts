/**
 * Issue 21: the README's goal "How much space does the folder /var/log take?" failed on a real
 * system — du met a 0700 folder, exited 1, and the fallback answered another question. With the
 * README's own example files (tool with `partial_exit_codes`, schema with `x-sentence`, shell
 * provider, playbook) in a fresh root, a real folder holding a chmod 000 subfolder is measured by
 * a user who may not open it: the answer gives the figure du could measure AND names the folder
 * it could not read, the outcome is partial in plain words, and replay says identical. As root
 * (which reads everything) the commands run as uid 65534 through setpriv; without setpriv the
 * test is skipped and says why.
 *
 * Also: a sentence naming a field the schema does not have is a load error naming the file and
 * the fix, in `pico manifests check` and in `pico run`.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleRoot, sh } from './example-root.js';

const isRoot = process.geteuid?.() === 0;
const hasSetpriv = spawnSync('setpriv', ['--version']).status === 0;
/** how a command runs as a user who cannot open a 000 folder: ourselves, or uid 65534 when we are root */
const AS = isRoot ? 'setpriv --reuid=65534 --regid=65534 --clear-groups ' : '';

/** Every file and folder under `dir` (and its parent, for traversal) handed to uid 65534. */
function giveToNobody(dir: string): void {
  chmodSync(dirname(dir), 0o755);
  spawnSync('chown', ['-R', '65534:65534', dir]);
}

type Result = { outcome: string; answer: string; facts: { step: string; fact: { path: string; kilobytes: number; unreadable: string[] } }[] };

describe('du on a folder holding one it may not read (the README example files)', () => {
  it.skipIf(isRoot && !hasSetpriv)('gives the figure it could measure and names what it could not read, as partial in plain words; replay says identical', async () => {
    const root = exampleRoot();
    const shared = join(root, 'examples', 'data', 'shared');
    mkdirSync(join(shared, 'open'), { recursive: true });
    mkdirSync(join(shared, 'locked'));
    writeFileSync(join(shared, 'open', 'a.bin'), Buffer.alloc(64 * 1024, 7));
    writeFileSync(join(shared, 'locked', 'secret.bin'), Buffer.alloc(32 * 1024, 9));
    // an operator's plan, and the same question as a goal the README's playbook plans
    writeFileSync(join(root, 'shared-size.json'), JSON.stringify({
      job: 'job@1', goal: 'How much space does examples/data/shared take?', budget_class: 'interactive',
      plan: [
        { step: 'size', tool: 'dir_size', args: { path: 'examples/data/shared' }, capability: 'extract@1', schema: 'dir_size@1' },
        { step: 'answer', capability: 'answer@1', schema: 'answer@1', from: ['size'] },
      ],
    }));
    writeFileSync(join(root, 'shared-goal.json'), JSON.stringify({ job: 'job@1', goal: `How much space does the folder ${shared} take?`, budget_class: 'interactive' }));
    if (isRoot) giveToNobody(root);
    chmodSync(join(shared, 'locked'), 0o000);

    for (const file of ['shared-size.json', 'shared-goal.json']) {
      const r = await sh(root, `${AS}pico run ${file} --root DIR --json`);
      const result = JSON.parse(r.stdout) as Result & { session_id: string };
      expect(result.outcome, r.stderr).toBe('partial');
      const fact = result.facts.find((f) => f.fact.kilobytes !== undefined)!.fact;
      expect(fact.path).toBe(shared);
      expect(fact.unreadable).toEqual([join(shared, 'locked')]);
      // what du could read: the 64 KiB file and the folders, not the 32 KiB one it could not open
      expect(fact.kilobytes).toBeGreaterThanOrEqual(64);
      expect(fact.kilobytes).toBeLessThan(64 + 32);
      expect(result.answer).toContain(`"${shared}" takes ${fact.kilobytes}.0 KiB.`);
      expect(result.answer).toContain(`I could not read "${join(shared, 'locked')}": not counted in this figure.`);
      expect(result.answer).toContain('This answer is partial: a check could not read everything it was asked to');
      // not another question answered in its place: the one fact is the folder's size
      expect(result.answer).not.toMatch(/owner|modified|mode|Not checked|could not check/i);
      const replay = await sh(root, `${AS}pico replay ${result.session_id} --root DIR`);
      expect(replay.stdout, replay.stderr).toMatch(/^identical: /);
      expect(replay.code).toBe(0);
    }
  }, 120_000);

  it('a sentence naming a field the schema does not have is a load error naming the file and the fix (manifests check, pico run)', async () => {
    const root = exampleRoot();
    const file = join(root, 'manifests', 'schemas', 'dir_size@1.json');
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...schema, 'x-sentence': ['{path} takes {kilobyte:kib}.'] }, null, 2));
    const check = await sh(root, 'pico manifests check --root DIR');
    expect(check.code).toBe(3);
    expect(check.stdout).toContain('manifests/schemas/dir_size@1.json at x-sentence.0: {kilobyte} names a field the schema does not have (did you mean {kilobytes}?)');
    expect(check.stdout).toContain('fix: name one of its properties: {path}, {kilobytes}, {unreadable} — or add "kilobyte" to "properties"');
    const run = await sh(root, 'pico run dir-size-job.json --root DIR');
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('manifests/schemas/dir_size@1.json at x-sentence.0: {kilobyte} names a field the schema does not have');
    expect(run.stderr).not.toMatch(/\n\s+at .*\.js:\d+/);
  }, 60_000);
});
