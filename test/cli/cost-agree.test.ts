/**
 * Issue 21 item 7: "`pico cost` and `pico cost ID` disagree on declared cost." A model's calls are
 * recorded under its pinned identity (`tiny@sha256:…`, the weights it ran), its manifest under its
 * id (`tiny`). Both views of the cost model read the manifest through the id, so the table of every
 * provider and the table of one say the same: the same rows, the same declared cost, the same source.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureStdout, type CapturedStdout } from '../helpers/stdout.js';
import { main as cost } from '../../src/cli/cost.js';
import { tempRoot, writeSession } from '../memory/helpers.js';

let t: ReturnType<typeof tempRoot>;
let stdout: CapturedStdout;
beforeEach(() => {
  t = tempRoot();
  stdout = captureStdout();
});
afterEach(() => {
  vi.restoreAllMocks();
  t.cleanup();
});

type Estimate = { provider: string; schema: string | null; n: number; p50_ms: number | null; p90_ms: number | null; source: string; manifest: { p50_ms: number; p90_ms: number } | null };

async function estimates(argv: string[]): Promise<Estimate[]> {
  stdout.clear();
  await cost([...argv, '--root', t.root, '--json']);
  return (JSON.parse(stdout.text()) as { estimates: Estimate[] }).estimates;
}

/** A session with `calls` calls of `provider` (an identity) for log_summary@2. */
function session(id: string, provider: string, calls: number): void {
  writeSession(t.sessions, id, [
    { type: 'composition', hash: 'sha256:c0', machine: 'sha256:m', config: 'pico.json' },
    { type: 'user_input', text: 'why is the disk full', trust: 'T0', budget_class: 'attended', job: {} },
    { type: 'step_started', step: 's1', tool: 'read_syslog', trust: 'T1', capability: 'extract@1', schema: 'log_summary@2' },
    ...Array.from({ length: calls }, (_, i) => ({
      type: 'provider_called', step: 's1', provider, capability: 'extract@1', schema: 'log_summary@2',
      duration_ms: 1000 + 100 * i, outcome: 'ok', attempt: i + 1, input_sha256: 'x', input_bytes: 10, output_blob: null, model_call: true,
    })),
    { type: 'answer_sent', outcome: 'answered', text: 'done', missing: [], trust: 'T1', spent: { wall_ms: 1, model_calls: calls, cpu_ms: 1 } },
  ]);
}

describe('pico cost and pico cost ID agree', () => {
  it('a model measured under its pinned identity shows its declared cost in both tables, with the same rows', async () => {
    writeFileSync(join(t.manifests, 'tiny.json'), JSON.stringify({ id: 'tiny', kind: 'gguf', cost: { p50_ms: 700, p90_ms: 900 } }));
    writeFileSync(join(t.manifests, 'other.json'), JSON.stringify({ id: 'other', kind: 'shell', cost: { p50_ms: 5, p90_ms: 9 } }));
    session('c-1', 'tiny@sha256:0123abcd', 3);
    const all = (await estimates([])).filter((e) => e.provider.startsWith('tiny'));
    const one = await estimates(['tiny']);
    expect(one).toEqual(all);
    expect(one).toHaveLength(1);
    // three calls (< 5): the manifest's declared cost, in both
    expect(one[0]).toMatchObject({ provider: 'tiny@sha256:0123abcd', schema: 'log_summary@2', n: 3, p50_ms: 700, p90_ms: 900, source: 'manifest', manifest: { p50_ms: 700, p90_ms: 900 } });
    // the manifest-only provider is listed once in both
    expect((await estimates([])).filter((e) => e.provider === 'other')).toEqual(await estimates(['other']));
  });

  it('from five calls the measured figures, beside the same declared cost, in both tables', async () => {
    writeFileSync(join(t.manifests, 'tiny.json'), JSON.stringify({ id: 'tiny', kind: 'gguf', cost: { p50_ms: 700, p90_ms: 900 } }));
    session('c-2', 'tiny@sha256:0123abcd', 6);
    const all = (await estimates([])).filter((e) => e.provider.startsWith('tiny'));
    const one = await estimates(['tiny']);
    expect(one).toEqual(all);
    expect(one[0]).toMatchObject({ n: 6, source: 'measured', manifest: { p50_ms: 700, p90_ms: 900 } });
  });

  it('a model whose declared cost is far from what was measured is flagged, and the advice names its manifest id', async () => {
    writeFileSync(join(t.manifests, 'tiny.json'), JSON.stringify({ id: 'tiny', kind: 'gguf', cost: { p50_ms: 50, p90_ms: 90 } }));
    session('c-3', 'tiny@sha256:0123abcd', 6);
    stdout.clear();
    await cost(['--root', t.root]);
    expect(stdout.text()).toMatch(/stale manifests [^\n]*\n[^\n]*\n[^\n]*\ntiny@sha256:0123abcd\s+log_summary@2\s+6\s+24\s/);
    expect(stdout.text()).toContain(`to measure the models on this machine:\n  pico probe tiny --root ${t.root}`);
    expect(stdout.text()).not.toMatch(/pico probe tiny@/);
  });
});
