/**
 * Record and replay: a run's model calls kept in a folder (a cassette), so
 * the table can be produced again, byte for byte, without any model.
 *
 *   DIR/run.json     eval-cassette@1: the provider's id, kind and identity
 *                    (weights hash or model name), the prompt variant and its
 *                    digest, the case file's digest, the ids of the cases it
 *                    holds (in order) and the --limit they came from, the
 *                    modes, the time
 *   DIR/calls.jsonl  one line per model call: case id, purpose (free,
 *                    retry-1, retry-2, grammar), whether it was constrained,
 *                    the prompt (system and user) and its sha256, the raw
 *                    output or the fault, the model's ms and prompt tokens
 *
 * A recorder wraps a live seam and writes both files whole (temp + rename)
 * when the run ends. A player answers each call from the file and refuses a
 * call whose prompt digest differs from the recorded one — the case file or
 * the variant changed, and the recorded output no longer answers it.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EvalInputError, type EvalCase } from './cases.js';
import type { Mode } from './modes.js';
import { messagesDigest, type PromptVariant } from './prompt.js';
import type { Caller, CallOutcome, Purpose } from './run.js';

export interface RunHeader {
  cassette: 'eval-cassette@1';
  provider: { id: string; kind: string; identity: string };
  variant: PromptVariant;
  variant_digest: string;
  /** ids: the cases recorded, in order (what --replay runs); limit: the --limit of the recording (null: none) */
  cases: { path: string; digest: string; count: number; ids?: string[]; limit?: number | null };
  modes: Mode[];
  recorded_at: string;
}

export interface RecordedCall extends CallOutcome {
  case: string;
  purpose: Purpose;
  constrained: boolean;
  prompt_sha256: string;
  system: string;
  user: string;
}

/** Write a file whole or not at all. */
function writeWhole(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** Wrap a seam so every call is kept; `save` writes the cassette. */
export function recorder(inner: Caller): { call: Caller; save(dir: string, header: RunHeader): void } {
  const calls: RecordedCall[] = [];
  return {
    call: async (c, purpose, messages, constrained, feedback) => {
      const out = await inner(c, purpose, messages, constrained, feedback);
      calls.push({ case: c.id, purpose, constrained, prompt_sha256: messagesDigest(messages), system: messages.system, user: messages.user, ...out });
      return out;
    },
    save(dir, header) {
      mkdirSync(dir, { recursive: true });
      writeWhole(path.join(dir, 'calls.jsonl'), calls.map((c) => JSON.stringify(c)).join('\n') + (calls.length ? '\n' : ''));
      writeWhole(path.join(dir, 'run.json'), `${JSON.stringify(header, null, 2)}\n`);
    },
  };
}

/** Open a cassette for replay; errors name the folder and the fix. */
export function player(dir: string): { header: RunHeader; call: Caller } {
  let header: RunHeader;
  let lines: string[];
  try {
    header = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as RunHeader;
    lines = readFileSync(path.join(dir, 'calls.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  } catch (e) {
    throw new EvalInputError(`--replay ${dir}: not a cassette (${(e as Error).message}); record one with pico eval CASES --provider ID --record ${dir}`);
  }
  if (header.cassette !== 'eval-cassette@1') throw new EvalInputError(`--replay ${dir}/run.json: not an eval-cassette@1 header`);
  const byKey = new Map<string, RecordedCall>();
  lines.forEach((line, i) => {
    let rec: RecordedCall;
    try {
      rec = JSON.parse(line) as RecordedCall;
    } catch {
      throw new EvalInputError(`--replay ${dir}/calls.jsonl: line ${i + 1} is not JSON; the cassette is damaged, record it again`);
    }
    byKey.set(`${rec.case}\u0000${rec.purpose}`, rec);
  });
  const call: Caller = (c: EvalCase, purpose, messages) => {
    const rec = byKey.get(`${c.id}\u0000${purpose}`);
    if (!rec) return Promise.reject(new EvalInputError(`--replay ${dir}: no recorded ${purpose} call for case "${c.id}"; the cassette was recorded with other cases or modes — record it again`));
    if (rec.prompt_sha256 !== messagesDigest(messages)) {
      return Promise.reject(new EvalInputError(`--replay ${dir}: case "${c.id}" (${purpose}) was recorded with another prompt; the case file or the prompt variant changed since — record it again`));
    }
    return Promise.resolve({ text: rec.text, error: rec.error, ms: rec.ms, prompt_tokens: rec.prompt_tokens });
  };
  return { header, call };
}
