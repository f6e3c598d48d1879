// The three probe tasks of design §17, each run end to end through the real runtime in a fresh
// `pico init` root: the real tools in the execution world, the shipped parsers (a code parser, a
// shell script), the ladder, committed facts and the answer. They are built from manifests,
// schemas, data and tools alone; the runtime (src/) did not change for any of them.
//
//   P-A one long document (a 200 KB syslog) → one structured record (log_summary@2)
//   P-B three local sources → one diagnosis, from a goal-only job (a playbook over three tools)
//   P-C a second modality: an image's and a recording's properties through a shell provider
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventOf, LedgerEvent } from '../../src/ledger/events.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { parseJob } from '../../src/runtime/job.js';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { makeRoot, newSession } from '../helpers/root.js';

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

/** Run one job file (as JSON) in the root; the result and the ledger. */
async function run(root: string, job: unknown) {
  rt = await openRuntime(root);
  const id = newSession(rt, parseJob(job));
  const result = await rt.runSession(id);
  const events = readLedger(rt.sessionDir(id));
  const facts = new Map(events.filter((e): e is EventOf<'fact_added'> => e.type === 'fact_added').map((e) => [e.step, e]));
  return { result, events, facts };
}
const exampleJob = (root: string, name: string): unknown => JSON.parse(readFileSync(join(root, 'examples/jobs', name), 'utf8'));
const ofType = <T extends LedgerEvent['type']>(events: LedgerEvent[], type: T) => events.filter((e): e is EventOf<T> => e.type === type);

describe('P-A: one long document to one structured record', () => {
  it('the 200 KB syslog of examples/long-log.mjs becomes one log_summary@2 whose count and first failure are the ones the log holds', async () => {
    const root = makeRoot('pico-probe-a-');
    const log = execFileSync(process.execPath, [join(root, 'examples/long-log.mjs')], { encoding: 'utf8' });
    writeFileSync(join(root, 'examples/data/long-syslog.txt'), log);
    expect(Buffer.byteLength(log)).toBeGreaterThan(200_000);

    const { result, events, facts } = await run(root, exampleJob(root, 'long-log-to-record.json'));
    expect(result.outcome).toBe('answered');
    const output = ofType(events, 'tool_output').find((e) => e.step === 'log')!;
    expect(output.bytes).toBe(Buffer.byteLength(log)); // the whole document, not a cut of it
    const fact = facts.get('log')!;
    expect(fact.provider).toMatch(/^log-summary-parser/);
    expect(fact.schema).toBe('log_summary@2');

    // what the log holds, counted by its generator's failure templates rather than by the parser's rules
    const failures = log.split('\n').filter((l) => /mmc0: error|rsync error|Failed password/.test(l));
    expect(failures.length).toBeGreaterThan(10);
    const first = /^(\w{3} [ \d]\d \d\d:\d\d:\d\d) pi5 ([\w.-]+)\[?\d*\]?: (.*)$/.exec(failures[0]!)!;
    expect(fact.fact).toMatchObject({ host: 'pi5', error_count: failures.length, first_error: first[3], first_error_at: first[1], service: first[2], max_severity: 'error' });
    expect(String((facts.get('answer')!.fact as { text: string }).text)).toContain(`The log shows ${failures.length} failure lines`);
  });
});

describe('P-B: three local sources to a diagnosis, from a goal-only job', () => {
  it('"Why is the Pi so slow?" is planned by the slow_load playbook, runs load, memory and temperature, and answers with an overall state', async () => {
    const root = makeRoot('pico-probe-b-');
    const { result, events, facts } = await run(root, exampleJob(root, 'why-is-the-pi-slow.json'));
    expect(result.outcome).toBe('answered');

    const plan = ofType(events, 'plan_created')[0]!;
    expect(plan.source).toBe('playbook');
    expect(plan.provider).toMatch(/^playbook-planner/);
    expect(plan.playbooks?.[0]).toBe('slow_load');
    expect(plan.steps.map((s) => s.tool ?? s.step)).toEqual(['load_top', 'memory_usage', 'thermal', 'answer']);

    // a loaded machine may call for a second look (issue 31): its facts come beside the three, never instead
    const looked = new Set(ofType(events, 'plan_extended').flatMap((e) => e.steps.map((s) => s.step)));
    expect([...facts.values()].filter((f) => !looked.has(f.step)).map((f) => f.schema).sort()).toEqual(['answer@1', 'load_processes@1', 'memory_usage@1', 'plan@1', 'thermal@1']);
    const kib = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]);
    expect((facts.get('memory_usage')!.fact as { total_bytes: number }).total_bytes).toBe(kib * 1024);

    const answer = facts.get('answer')!.fact as { text: string; cites: string[] };
    expect(answer.cites).toEqual(['load_top', 'memory_usage', 'thermal', ...looked]);
    expect(answer.text).toMatch(/^Load averages [\d.]+ \/ /);
    expect(answer.text).toMatch(/Memory is [\d.]+% used of /);
    expect(answer.text).toMatch(/Overall: (ok|warning|critical) \(/);
  });
});

describe('P-C: a second modality through a non-GGUF provider', () => {
  it('the sample PNG and WAV are read from their headers by the media-header shell provider into image and audio facts', async () => {
    const root = makeRoot('pico-probe-c-');
    const { result, facts } = await run(root, exampleJob(root, 'image-and-audio-properties.json'));
    expect(result.outcome).toBe('answered');

    const image = facts.get('image')!;
    expect(image.provider).toBe('media-header');
    expect(image.fact).toEqual({ format: 'png', width: 3, height: 2, bit_depth: 8, color: 'rgba', bytes_read: 89, note: null });
    const audio = facts.get('audio')!;
    expect(audio.provider).toBe('media-header');
    expect(audio.fact).toEqual({ format: 'wav', encoding: 'pcm', channels: 1, sample_rate_hz: 8000, bits_per_sample: 16, byte_rate: 16000, data_bytes: 4000, duration_seconds: 0.25, bytes_read: 4044, note: null });
    expect((facts.get('answer')!.fact as { text: string }).text).toBe('A PNG image, 3 × 2 pixels (8 bits per sample, RGBA). A WAV PCM recording, mono, 8000 Hz, 16-bit; 0.25 s long.');
  });

  it.skipIf(!existsSync('/usr/bin/file'))('the facts agree with what file(1) says of the same samples', () => {
    const root = makeRoot('pico-probe-c-file-');
    const say = (p: string) => execFileSync('/usr/bin/file', ['-b', join(root, 'examples/data', p)], { encoding: 'utf8' });
    expect(say('sample.png')).toMatch(/PNG image data, 3 x 2, 8-bit\/color RGBA/);
    expect(say('tone.wav')).toMatch(/WAVE audio, Microsoft PCM, 16 bit, mono 8000 Hz/);
  });
});
