/**
 * Measuring a GGUF model on this machine, in a child process.
 *
 * Peak RSS must be the model's own, not the caller's (a CLI, a test runner, a
 * bench harness), so the measurement runs in a fresh `node` child and reports
 * its `maxRSS`. The child's program is a short ES module string
 * written to a temp file (so it runs the same from sources under vitest and from dist), and it
 * imports node-llama-cpp by the path this package resolves. It measures: cold
 * load (backend + model + context, first time in the process), warm load
 * (model + context again, page cache hot), prompt tokens/s (one batch of
 * prompt tokens evaluated) and decode tokens/s, with and without a JSON-schema
 * grammar. It does not write manifests; `pico probe` does. (The program is
 * written to a temp .mjs file rather than passed with -e: node-llama-cpp tests
 * its binary in a subprocess that inherits execArgv, and -e breaks that. The
 * file lives in a folder of its own, made by mkdtemp under `tmpDir` — the
 * root's .tmp/ for provision and probe — and removed when the child ends, so
 * two users never meet at one fixed name.)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export interface ModelMeasurement {
  load_ms_cold: number;
  load_ms_warm: number;
  prompt_tokens: number;
  prompt_tokens_per_s: number;
  decode_tokens: number;
  decode_tokens_per_s: number;
  grammar_decode_tokens: number;
  grammar_decode_tokens_per_s: number;
  peak_rss_mb: number;
}

const CHILD = `
const [url, file, threads, contextSize, maxTokens] = JSON.parse(process.argv[2]);
const { getLlama, LlamaLogLevel, LlamaCompletion } = await import(url);
const now = () => performance.now();
let t = now();
const llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, progressLogs: false, logLevel: LlamaLogLevel.error });
let model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
let context = await model.createContext({ contextSize, threads });
const cold = now() - t;
await context.dispose(); await model.dispose();
t = now();
model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
context = await model.createContext({ contextSize, threads });
const warm = now() - t;
const text = 'Mar  3 10:15:07 web01 nginx[812]: error: upstream timed out while reading response header from upstream. ';
let tokens = model.tokenize(text.repeat(40)).slice(0, Math.min(256, contextSize - 160));
let seq = context.getSequence();
t = now();
await seq.evaluateWithoutGeneratingNewTokens(tokens);
const promptMs = now() - t;
seq.dispose();
async function decode(grammar) {
  const s = context.getSequence();
  const completion = new LlamaCompletion({ contextSequence: s });
  let first = 0, n = 0, last = 0;
  await completion.generateCompletion('Once upon a time', { maxTokens, temperature: 0, topK: 1, seed: 1, grammar,
    onToken: (tk) => { if (!first) first = now(); n += tk.length; last = now(); } });
  completion.dispose({ disposeSequence: true });
  return { n: Math.max(0, n - 1), ms: last - first };
}
const plain = await decode(undefined);
const grammar = await llama.createGrammarForJsonSchema({ type: 'object', properties: { story: { type: 'string' }, count: { type: 'integer' } } });
const constrained = await decode(grammar);
await context.dispose(); await model.dispose(); await llama.dispose();
const rate = (n, ms) => (ms > 0 ? (n * 1000) / ms : 0);
process.stdout.write(JSON.stringify({
  load_ms_cold: cold, load_ms_warm: warm, prompt_tokens: tokens.length, prompt_tokens_per_s: rate(tokens.length, promptMs),
  decode_tokens: plain.n, decode_tokens_per_s: rate(plain.n, plain.ms),
  grammar_decode_tokens: constrained.n, grammar_decode_tokens_per_s: rate(constrained.n, constrained.ms),
  peak_rss_mb: process.resourceUsage().maxRSS / 1024,
}));
`;

/** Measure a model file in a fresh child process; throws with the child's stderr when it fails. */
/** `decodeTokens`: tokens decoded per rate (default 128; fewer is quicker and noisier). */
export async function measureModel(file: string, opts: { threads: number; contextSize: number; timeoutMs?: number; tmpDir?: string; decodeTokens?: number }): Promise<ModelMeasurement> {
  const url = pathToFileURL(createRequire(import.meta.url).resolve('node-llama-cpp')).href;
  const args = JSON.stringify([url, file, opts.threads, opts.contextSize, opts.decodeTokens ?? 128]);
  const dir = mkdtempSync(path.join(opts.tmpDir ?? tmpdir(), 'pico-measure-'));
  try {
    const program = path.join(dir, 'measure.mjs');
    writeFileSync(program, CHILD, { mode: 0o600 });
    return await runChild(program, args, file, opts.timeoutMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Run the measuring program in a fresh node and parse what it prints. */
function runChild(program: string, args: string, file: string, timeoutMs: number | undefined): Promise<ModelMeasurement> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [program, args],
      { timeout: timeoutMs ?? 120_000, maxBuffer: 1 << 20, env: { ...process.env, NODE_OPTIONS: '' } },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`measuring ${file} failed (${err.message.split('\n')[0]}): ${stderr.trim().slice(-400)}`));
        try {
          resolve(JSON.parse(stdout) as ModelMeasurement);
        } catch {
          reject(new Error(`measuring ${file}: the child printed no measurement: ${stdout.slice(0, 200)} ${stderr.slice(-200)}`));
        }
      },
    );
  });
}
