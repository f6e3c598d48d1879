/**
 * Issue 16, done when: "An http provider on a scripted loopback server
 * exercises retry (a first wrong answer, a corrected second) and is scored
 * accordingly." No llama-server can run on the build machines, so this file
 * starts a small OpenAI-compatible server on 127.0.0.1 whose answers are
 * scripted: a wrong first answer, the right one once the request carries the
 * ladder's feedback, and the right one under `response_format` (grammar).
 * Real sockets, the real http adapter, real manifest files; then `--save`
 * writes the pass rates and the policy's floor reads them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveRun } from '../../src/cli/eval.js';
import { evaluate } from '../../src/eval/index.js';
import { loadRoot } from '../../src/registry/load.js';
import { select } from '../../src/runtime/policy.js';
import { tempDir } from '../helpers/temp.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
type Body = { messages: Array<{ content: string }>; response_format?: unknown };
const seen: Body[] = [];
let server: Server;
let base = '';

/** The scripted model: wrong first, right after feedback or under a grammar. */
function answer(body: Body): string {
  const user = body.messages[1]!.content;
  const right = user.includes('SD card') ? '{"name": "capture_df", "arguments": {}}' : '{"name": "unit_status", "arguments": {"unit": "nginx"}}';
  if (body.response_format || user.includes('Your previous answer was refused')) return right;
  return user.includes('SD card') ? 'Sure! I will check the disk with disk_check().' : '```json\n{"name": "unit_status", "arguments": {"service": "nginx"}}\n```';
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Body;
      seen.push(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: answer(body) } }], usage: { prompt_tokens: 100 + seen.length, completion_tokens: 12 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

/** A root with the shipped manifests and an http provider pointing at the scripted server. */
function makeRoot(): string {
  const root = tempDir('pico-eval-http-');
  cpSync(path.join(REPO, 'manifests'), path.join(root, 'manifests'), { recursive: true });
  cpSync(path.join(REPO, 'prompts'), path.join(root, 'prompts'), { recursive: true });
  // shell providers' scripts are named by their manifests and must exist under the root
  cpSync(path.join(REPO, 'providers'), path.join(root, 'providers'), { recursive: true, filter: (src) => !src.endsWith('.ts') });
  writeFileSync(path.join(root, 'manifests/providers/local.json'), JSON.stringify({
    manifest: 'provider@1', id: 'local', implements: ['plan@1'], kind: 'http', endpoint: base, model: 'scripted-1b',
    max_input_bytes: 8192, resource: null, cost: null, security: { 'plan@1': { max_trust_in: 'T0', may_emit_control: true } },
    confidence_floor: null, escalates_to: [], sampler: { determinism: 'seeded', temperature: 0, top_k: 1, seed: 1, max_tokens: 128 },
    prompt: 'extract-log-summary', limits: { timeout_ms: 5000, max_output_bytes: 8192 },
  }, null, 2));
  const cases = Array.from({ length: 6 }, (_, i) => i % 2 === 0
    ? { id: `sd-${i}`, category: 'tool-call', query: 'Is the SD card filling up?', tools: ['capture_df', 'memory_usage', 'thermal'], expected: { name: 'capture_df', arguments: {} }, allowed: {} }
    : { id: `nginx-${i}`, category: 'tool-call', query: 'Is nginx running?', tools: ['unit_status', 'journal_window'], expected: { name: 'unit_status', arguments: { unit: 'nginx' } }, allowed: { unit: ['nginx', 'nginx.service'] } });
  writeFileSync(path.join(root, 'cases.json'), JSON.stringify(cases));
  return root;
}

describe('pico eval against an http provider on a scripted loopback server', () => {
  it('retry turns a wrong first answer into the corrected second; ladder alone is wrong; grammar sends response_format', async () => {
    const root = makeRoot();
    seen.length = 0;
    const run = await evaluate({ casesPath: path.join(root, 'cases.json'), root, provider: 'local' });
    expect(run.modes).toEqual(['raw', 'extract', 'ladder', 'retry', 'grammar']);
    expect(run.summary.raw).toMatchObject({ right: 0, cases: 6, crashed: 6 });
    expect(run.summary.ladder).toMatchObject({ right: 0, refused: 6, model_calls: 1 });
    expect(run.summary.retry).toMatchObject({ right: 6, score: 1, refused: 0, model_calls: 2 });
    expect(run.summary.grammar).toMatchObject({ right: 6, model_calls: 1 });
    expect(run.info.identity).toBe('local@scripted-1b');
    // 6 cases x (free + one retry + grammar); the retry quotes the ladder's error, only grammar is constrained
    expect(seen).toHaveLength(18);
    const retries = seen.filter((b) => b.messages[1]!.content.includes('Your previous answer was refused'));
    expect(retries).toHaveLength(6);
    expect(retries.some((b) => /bad_arguments|service/.test(b.messages[1]!.content))).toBe(true);
    expect(seen.filter((b) => b.response_format !== undefined)).toHaveLength(6);
    expect(run.summary.retry!.prompt_tokens).not.toBeNull(); // the server's usage block is counted
  });

  it('--save writes the pass rate of the mode closest to the runtime into the manifest; the policy floor reads it until live observations take over', async () => {
    const root = makeRoot();
    const run = await evaluate({ casesPath: path.join(root, 'cases.json'), root, provider: 'local', modes: ['ladder'] });
    const saved = saveRun(run, root);
    expect(saved).toEqual([expect.objectContaining({ capability: 'plan@1', schema: 'plan@1', measurement: expect.objectContaining({ pass_rate: 0, n: 6, mode: 'ladder' }) })]);
    const written = JSON.parse(readFileSync(path.join(root, 'manifests/providers/local.json'), 'utf8'));
    expect(written.measured['plan@1']['plan@1'].cases_sha256).toBe(run.casesDigest);
    const loaded = loadRoot(root); // the manifest with `measured` still loads strictly
    const p = loaded.documents.providers.local!;
    const req = {
      capability: loaded.documents.capabilities['plan@1']!, schemaId: 'plan@1', inputTrust: 'T0' as const, inputBytes: 10, remainingMs: 60_000, isModel: () => true,
    };
    const judged = select([p], { ...req, measurements: {} });
    expect(judged.candidates).toHaveLength(0);
    expect(judged.rejected[0]).toMatchObject({ filter: 'pass_rate' });
    expect(judged.rejected[0]!.reason).toContain('eval pass rate 0% over 6 eval cases');
    const live = select([p], { ...req, measurements: { local: { 'plan@1': { pass_rate: 0.9, n: 5, p50_ms: 10, p90_ms: 20, source: 'measured' } } } });
    expect(live.candidates.map((c) => c.id)).toEqual(['local']);
  });
});
