/**
 * Issue 15 item 7: what a person sees of a run — a line per step start and end, and one live
 * line for a call in flight, rewritten in place on a terminal and throttled in a pipe — and the
 * side file `pico watch` reads, trusted only while it is current.
 */
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LiveView } from '../../src/progress/view.js';
import { StepTracker } from '../../src/progress/steps.js';
import { ProgressWriter, readProgress, PROGRESS_FILE } from '../../src/progress/side-file.js';
import { tempDir } from '../helpers/temp.js';

/** An output stream that keeps what was written (the view's only dependency). */
function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { out: { isTTY, columns: 60, write: (s: string) => chunks.push(s) }, text: () => chunks.join(''), chunks };
}

describe('LiveView', () => {
  it('on a terminal rewrites one live line in place and puts it back below a line that stays', () => {
    const s = sink(true);
    const v = new LiveView(s.out);
    v.live('s1 tiny (gguf) attempt 1: 3 tokens, 0.1 s');
    v.live('s1 tiny (gguf) attempt 1: 9 tokens, 0.2 s');
    v.line('s1 committed: note@1 by tiny in 0.3 s');
    v.close();
    expect(s.chunks[0]).toBe('\r\x1b[Ks1 tiny (gguf) attempt 1: 3 tokens, 0.1 s');
    expect(s.chunks[1]).toBe('\r\x1b[Ks1 tiny (gguf) attempt 1: 9 tokens, 0.2 s');
    expect(s.text()).toContain('\r\x1b[Ks1 committed: note@1 by tiny in 0.3 s\ns1 tiny (gguf) attempt 1: 9 tokens');
    expect(s.text().endsWith('\r\x1b[K')).toBe(true); // closed: nothing half-drawn
    expect(s.text()).not.toContain('\n\n');
  });

  it('in a pipe prints no live line for a quick call and one plain line per interval for a long one', () => {
    let now = 0;
    const s = sink(false);
    const v = new LiveView(s.out, { plainEveryMs: 2000, now: () => now });
    v.live('quick: running, 0 ms');
    now = 500;
    v.live(null);
    expect(s.text()).toBe('');
    for (now = 1000; now <= 7000; now += 250) v.live(`long: running, ${now} ms`);
    v.line('s1 committed');
    const lines = s.text().trimEnd().split('\n');
    expect(lines).toEqual(['long: running, 3000 ms', 'long: running, 5000 ms', 'long: running, 7000 ms', 's1 committed']);
    expect(s.text()).not.toContain('\r');
  });
});

describe('StepTracker', () => {
  const ev = (type: string, t: string, extra: Record<string, unknown>) => ({ type, t: `2026-12-01T10:00:${t}Z`, ...extra });

  it('names each step as it starts and ends, with its provider, its duration and why it failed', () => {
    const k = new StepTracker('pico show X --full');
    expect(k.line(ev('step_started', '00.000', { step: 's1', tool: 'read_file', capability: 'extract@1', schema: 'note@1' }))).toBe('s1 started: tool read_file → extract@1 (note@1)');
    expect(k.current).toBe('s1');
    expect(k.live({ provider: 'tiny', kind: 'gguf', attempt: 1, output_tokens: 37, ms: 2100 })).toBe('s1   tiny (gguf) attempt 1: 37 tokens, 2.1 s');
    expect(k.line(ev('provider_called', '01.000', { step: 's1', provider: 'tiny', attempt: 1, outcome: 'ok', duration_ms: 900 }))).toBeNull();
    expect(k.line(ev('fact_added', '02.300', { step: 's1', schema: 'note@1', provider: 'tiny@sha256:ab' }))).toBe('s1 committed: note@1 by tiny@sha256:ab in 2.3 s');
    expect(k.current).toBeNull();
    k.line(ev('step_started', '03.000', { step: 's2', tool: null, capability: 'answer@1', schema: 'answer@1' }));
    expect(k.line(ev('validation_failed', '03.500', { step: 's2', provider: 'p', error: 'missing text' }))).toBe('s2   p validation_failed: missing text');
    const long = 'y'.repeat(1000);
    const failed = k.line(ev('step_failed', '04.000', { step: 's2', provider: null, error: long }))!;
    expect(failed).toBe(`s2 failed in 1.0 s: ${'y'.repeat(300)}… (700 more characters: pico show X --full)`);
  });

  it('a capability gap ends the step as failed, and the watch suffix says how long the step took', () => {
    const k = new StepTracker('r');
    const start = ev('step_started', '00.000', { step: 's1', tool: 't', capability: 'c', schema: 's' });
    expect(k.suffix(start)).toBe('');
    k.line(start);
    const gap = ev('capability_gap', '00.250', { step: 's1', provider: null, error: 'no local provider' });
    expect(k.suffix(gap)).toBe(' (step failed in 250 ms)');
    expect(k.line(gap)).toBe('s1 failed in 250 ms: capability_gap: no local provider');
    expect(k.current).toBeNull();
  });
});

describe('the progress side file', () => {
  it('is written whole once a call has run a moment, at most every interval after, and removed when the call ends', async () => {
    const dir = tempDir('pico-progress-');
    let now = 1000;
    const w = new ProgressWriter(dir, 'S', 250, () => now, 20);
    w.setStep('s1');
    const p = { provider: 'tiny', kind: 'gguf' as const, attempt: 1, ms: 0 };
    w.report({ ...p, phase: 'started', output_tokens: null });
    expect(existsSync(join(dir, PROGRESS_FILE))).toBe(false); // not yet: most calls end before the first write
    now += 30;
    await new Promise((r) => setTimeout(r, 60)); // the first write comes by itself, without a token report
    expect(readProgress(dir, 'S', 's1')).toMatchObject({ progress: 'progress@1', step: 's1', provider: 'tiny', output_tokens: null, ms: 30, pid: process.pid });
    now += 100;
    w.report({ ...p, phase: 'tokens', output_tokens: 5, ms: 130 });
    expect(readProgress(dir, 'S', 's1')!.output_tokens).toBeNull(); // within the interval: not rewritten
    now += 200;
    w.report({ ...p, phase: 'tokens', output_tokens: 12, ms: 330 });
    expect(readProgress(dir, 'S', 's1')!.output_tokens).toBe(12);
    w.report({ ...p, phase: 'ended', output_tokens: 12, ms: 331 });
    expect(existsSync(join(dir, PROGRESS_FILE))).toBe(false);
  });

  it('is never written for a call that ends before the first write is due', async () => {
    const dir = tempDir('pico-progress-');
    mkdirSync(dir, { recursive: true });
    const w = new ProgressWriter(dir, 'S', 250, Date.now, 20);
    w.setStep('s1');
    const p = { provider: 'parser', kind: 'code' as const, attempt: 1, output_tokens: null };
    w.report({ ...p, phase: 'started', ms: 0 });
    w.report({ ...p, phase: 'ended', ms: 1 });
    w.setStep(null);
    await new Promise((r) => setTimeout(r, 60));
    expect(existsSync(join(dir, PROGRESS_FILE))).toBe(false);
  });

  it('is ignored when stale: another session, another step, a dead writer, or not whole', () => {
    const dir = tempDir('pico-progress-');
    mkdirSync(dir, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    const doc = { progress: 'progress@1', session: 'S', step: 's1', provider: 'tiny', kind: 'gguf', attempt: 1, output_tokens: 4, ms: 10, pid: process.pid, updated_at: new Date().toISOString() };
    writeFileSync(join(dir, PROGRESS_FILE), JSON.stringify(doc));
    expect(readProgress(dir, 'S', 's1')).not.toBeNull();
    expect(readProgress(dir, 'T', 's1')).toBeNull();
    expect(readProgress(dir, 'S', 's2')).toBeNull();
    expect(readProgress(dir, 'S', null)).toBeNull();
    writeFileSync(join(dir, PROGRESS_FILE), JSON.stringify({ ...doc, pid: Number(dead) }));
    expect(readProgress(dir, 'S', 's1')).toBeNull();
    writeFileSync(join(dir, PROGRESS_FILE), JSON.stringify(doc).slice(0, 40));
    expect(readProgress(dir, 'S', 's1')).toBeNull();
  });
});
