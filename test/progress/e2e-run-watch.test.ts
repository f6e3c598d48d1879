/**
 * Issue 15 item 7 on the real compiled CLI: "`pico run` is silent for 33 s during a model call;
 * `pico watch` and `pico show` cut the answer short". A slow shell provider stands in for a long
 * call (the token counter itself is tested with the real model in test/models/progress.test.ts).
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from '../daemon/helpers.js';
import { MAIN_JS, picoAsync as pico, startDaemon } from '../daemon/spawn.js';

/** 833 distinct words: a note of 4,998 characters whose every part can be found in the output. */
const NOTE = Array.from({ length: 833 }, (_, i) => `w${String(i).padStart(4, '0')}`).join(' ') + '.';

/** A root where extract@1 → note@1 is served by a shell provider that sleeps, then answers NOTE (or fails). */
function slowRoot(sleepS: number, fail = false): string {
  const root = tempRoot('pico-progress-e2e-');
  initRoot(root);
  writeFileSync(join(root, 'manifests/schemas/note@1.json'), JSON.stringify({
    $id: 'note@1', type: 'object', additionalProperties: false, required: ['note'], properties: { note: { type: 'string' } },
  }));
  const cap = JSON.parse(readFileSync(join(root, 'manifests/capabilities/extract@1.json'), 'utf8')) as { schemas: string[] };
  cap.schemas.push('note@1');
  writeFileSync(join(root, 'manifests/capabilities/extract@1.json'), JSON.stringify(cap));
  mkdirSync(join(root, 'providers'), { recursive: true });
  const body = fail
    ? `cat >/dev/null; sleep ${sleepS}; echo "the parser gave up: ${'z'.repeat(600)}" >&2; exit 3`
    : `cat >/dev/null; sleep ${sleepS}; printf '%s' '${JSON.stringify({ note: NOTE })}'`;
  writeFileSync(join(root, 'providers/slow-note.sh'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(root, 'providers/slow-note.sh'), 0o755);
  writeFileSync(join(root, 'manifests/providers/slow-note.json'), JSON.stringify({
    manifest: 'provider@1', id: 'slow-note', implements: ['extract@1'], kind: 'shell', command: ['providers/slow-note.sh'], schemas: ['note@1'],
    limits: { timeout_ms: 20_000, max_output_bytes: 65536 }, max_input_bytes: 262144, resource: null, cost: null,
    security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } }, confidence_floor: null, escalates_to: [],
  }));
  return root;
}

/** A job of `steps` steps, each read_file → extract@1 (note@1), in the attended class (room for slow steps). */
function writeJob(root: string, steps: string[]): string {
  const file = join(root, 'note-job.json');
  writeFileSync(file, JSON.stringify({
    job: 'job@1', goal: 'what does the note say?', budget_class: 'attended',
    plan: steps.map((step) => ({ step, tool: 'read_file', args: { path: 'examples/data/df.txt' }, capability: 'extract@1', schema: 'note@1' })),
  }));
  return file;
}

/** Run the real CLI with piped output; each stderr line with the ms it arrived after the start. */
function runTimed(args: string[]): Promise<{ code: number | null; stdout: string; lines: { at: number; text: string }[]; ms: number }> {
  return new Promise((ok) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [MAIN_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let rest = '';
    const lines: { at: number; text: string }[] = [];
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => {
      rest += b.toString();
      for (let nl = rest.indexOf('\n'); nl !== -1; nl = rest.indexOf('\n')) {
        lines.push({ at: Date.now() - t0, text: rest.slice(0, nl) });
        rest = rest.slice(nl + 1);
      }
    });
    child.on('close', (code) => ok({ code, stdout, lines, ms: Date.now() - t0 }));
  });
}

describe('pico run shows its steps as they happen', () => {
  it('in a pipe: each step as it starts and ends, in order and while the run goes on, a plain live line during a long call, the answer whole on stdout; replay is byte-identical', async () => {
    const root = slowRoot(2.6);
    const r = await runTimed(['run', writeJob(root, ['first', 'second']), '--root', root]);
    expect(r.code).toBe(0);
    const texts = r.lines.map((l) => l.text);
    const at = (re: RegExp) => texts.findIndex((t) => re.test(t));
    const order = [
      at(/^first started: tool read_file → extract@1 \(note@1\)$/),
      at(/^first   slow-note \(shell\) attempt 1: running, [\d.]+ s$/),
      at(/^first committed: note@1 by slow-note in [\d.]+ s$/),
      at(/^second started: tool read_file → extract@1 \(note@1\)$/),
      at(/^second   slow-note \(shell\) attempt 1: running, [\d.]+ s$/),
      at(/^second committed: note@1 by slow-note in [\d.]+ s$/),
    ];
    expect(order.every((i) => i >= 0), texts.join('\n')).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // shown when it happened, not at the end: the first commit came out while the second step still slept
    expect(r.ms - r.lines[order[2]!]!.at).toBeGreaterThan(1500);
    expect(texts.join('\n')).not.toContain('\r'); // no terminal: no in-place rewriting
    expect(r.stdout).toContain(NOTE); // the answer, whole
    const id = /session (\S+) —/.exec(r.stdout)![1]!;
    // the ledger of a run with progress on is the one a run without it writes: replay re-runs and diffs byte by byte
    const replay = await pico(['replay', id, '--root', root]);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    expect(readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8')).not.toContain('tokens');
  }, 60_000);

  it('a failed step says so with its reason, cut at 300 characters with where to read the rest; --json prints no progress', async () => {
    const root = slowRoot(0, true);
    const r = await runTimed(['run', writeJob(root, ['only']), '--root', root]);
    expect(r.code).toBe(1);
    const failed = r.lines.map((l) => l.text).find((t) => t.startsWith('only failed'));
    expect(failed).toMatch(/^only failed in [\d.]+ m?s: no provider produced a valid note@1: slow-note: .*… \(\d+ more characters: pico show \S+ --root \S+ --full\)$/);
    const json = await runTimed(['run', writeJob(root, ['only']), '--root', root, '--json']);
    expect(json.lines).toEqual([]);
    expect((JSON.parse(json.stdout) as { outcome: string }).outcome).toBe('declined');
  }, 60_000);
});

describe('pico watch and pico show print the whole answer', () => {
  it('watch, following the real daemon, shows the step live and ends with the 5,000-character answer whole; show prints it whole and says how to see a cut fact', async () => {
    const root = slowRoot(5); // long enough that the watch, which starts a moment later, sees 2 s of it
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const sub = await pico(['submit', writeJob(root, ['s1']), '--root', root]);
    expect(sub.code, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    const w = await pico(['watch', id, '--root', root]);
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).toMatch(/step_started\s+step=s1 tool=read_file capability=extract@1 schema=note@1/);
    // read from the worker's side file while the provider slept
    expect(w.stdout).toMatch(/^s1 {3}slow-note \(shell\) attempt 1: running, [\d.]+ s$/m);
    expect(w.stdout).toMatch(/fact_added\s+step=s1 provider=slow-note schema=note@1 trust=T1 (?:confidence=\S+ )?\(step committed in [\d.]+ s\)/);
    expect(w.stdout).toMatch(/answer_sent\s+outcome=answered\n/);
    expect(w.stdout).toContain(NOTE);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);

    const show = await pico(['show', id, '--root', root]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/ANSWER \[answered\][^\n]*:\n/);
    expect(show.stdout).toContain(NOTE);
    const cut = /FACT note@1 .*… \((\d+) more characters: pico show (\S+) --root (\S+) --full\)$/m.exec(show.stdout);
    expect(cut, show.stdout.slice(0, 2000)).not.toBeNull();
    expect(cut![2]).toBe(id);
    const full = await pico(['show', id, '--root', root, '--full']);
    expect(full.stdout.split('\n').find((l) => l.includes('FACT note@1'))).toContain(JSON.stringify({ note: NOTE }));
    expect(full.stdout).not.toMatch(/more characters/);
  }, 90_000);
});
