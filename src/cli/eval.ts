/**
 * `pico eval CASES --provider ID [--modes LIST] [--root DIR] [--json]` — the
 * seeds' harness comparison on this machine: one provider, every case of a
 * case file, scored under each harness mode (raw, extract, ladder, retry,
 * grammar). Parsing only; the work is src/eval/.
 *
 *   --recorded            score the model text already in each case's "input" (no model)
 *   --record DIR          keep every call (prompt, output, identity) in a cassette
 *   --replay DIR          re-score a cassette without any model (same table, byte for byte)
 *   --tools compact|full  tool / field descriptions: one line each, or full JSON schemas
 *   --shots 0|1|2         few-shot examples in the prompt
 *   --no-json-only        leave out the "output only JSON" instruction
 *   --limit N             only the first N cases (a cassette remembers its cases: --replay runs them)
 *   --save                write the measured pass rates into the provider manifest
 *
 * `pico eval --goals FILE [--only REGEX] [--limit N] [--plans-only] [--root DIR] [--json]` measures
 * the agent instead: every goal of a goal file planned in a scratch root, scored for retrieval,
 * plans, parts, declines and approvals, then answered on this machine and scored for what a
 * person reads — sentences with a source, parts both answered and not checked (src/eval/goals/;
 * `--plans-only` skips the answers); `--root` names the root whose manifests are measured
 * (default: the package's).
 *
 * Exit 0 when the table was produced; 1 when the provider cannot run; 2 on a
 * usage or case-file error; 3 when the root's manifests do not load.
 */
import path from 'node:path';
import { EXIT, emit, parse, rootOf, UsageError } from './args.js';
import { evaluate, EvalInputError, ProviderUnavailable, type EvalOptions, type EvalRun } from '../eval/index.js';
import { parseModes } from '../eval/modes.js';
import { DEFAULT_VARIANT, type PromptVariant } from '../eval/prompt.js';
import { saveMeasured, type Saved } from '../eval/save.js';
import { jsonReport, renderTable } from '../eval/table.js';
import { evalProgress, type ProgressSink } from '../eval/progress.js';

const USAGE = 'pico eval --goals FILE [--only REGEX] [--limit N] [--plans-only] [--root DIR] [--json]\n       pico eval CASES (--provider ID | --recorded | --replay DIR) [--modes raw,extract,ladder,retry,grammar] [--record DIR] [--tools compact|full] [--shots 0|1|2] [--no-json-only] [--limit N] [--save] [--root DIR] [--json]';

const options = {
  provider: { type: 'string' }, modes: { type: 'string' }, root: { type: 'string' }, json: { type: 'boolean' },
  recorded: { type: 'boolean' }, record: { type: 'string' }, replay: { type: 'string' },
  tools: { type: 'string' }, shots: { type: 'string' }, 'no-json-only': { type: 'boolean' },
  limit: { type: 'string' }, save: { type: 'boolean' }, goals: { type: 'string' }, only: { type: 'string' }, 'plans-only': { type: 'boolean' },
} as const;

/** The prompt variant from the flags, or undefined when none was given. */
function variantOf(v: { tools?: string; shots?: string; 'no-json-only'?: boolean }): PromptVariant | undefined {
  if (v.tools === undefined && v.shots === undefined && !v['no-json-only']) return undefined;
  const tools = v.tools ?? DEFAULT_VARIANT.tools;
  if (tools !== 'compact' && tools !== 'full') throw new UsageError(`--tools: expected compact or full, got "${tools}"\nusage: ${USAGE}`);
  const shots = v.shots === undefined ? DEFAULT_VARIANT.shots : Number(v.shots);
  if (shots !== 0 && shots !== 1 && shots !== 2) throw new UsageError(`--shots: expected 0, 1 or 2, got "${v.shots}"\nusage: ${USAGE}`);
  return { tools, shots, json_only: !v['no-json-only'] };
}

/** Save the run's pass rates into the provider manifest; returns what was written. */
export function saveRun(run: EvalRun, root: string): Saved[] {
  if (!run.provider || run.info.source !== 'live') throw new EvalInputError('--save needs a live run with --provider ID (a replay or recorded text is not a measurement of this machine)');
  const file = path.join(root, 'manifests', 'providers', `${run.provider.id}.json`);
  return saveMeasured(file, run.results, run.modes, { cases: run.info.cases_path, cases_sha256: run.casesDigest, variant_digest: run.variantDigest ?? '' });
}

/** Entry point of `pico eval`. */
/**
 * Run an evaluation with its progress line (case n of N, time so far and left) on `sink`: every
 * command that evaluates (`pico eval`, `pico provision --eval`) goes through here, so none of them
 * runs silent for minutes on a slow model.
 */
export function evaluateWithProgress(o: Omit<EvalOptions, 'onCase'>, sink: ProgressSink = process.stderr): Promise<EvalRun> {
  const progress = evalProgress(sink);
  return evaluate({ ...o, onCase: progress.tick }).finally(progress.end);
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, options, USAGE);
  if (values.help) { process.stdout.write(`usage: ${USAGE}\n`); return EXIT.ok; }
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new UsageError(`--limit: expected a positive integer, got "${values.limit}"`);
  if (values.goals === undefined && positionals.length !== 1) throw new UsageError(`give exactly one case file\nusage: ${USAGE}`);
  let modes;
  try {
    modes = values.modes === undefined ? undefined : parseModes(values.modes);
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\nusage: ${USAGE}`);
  }
  if (values.goals !== undefined) return goalsMain(values, positionals, limit);
  const root = rootOf(values);
  const json = values.json === true;
  try {
    const run = await evaluateWithProgress({
      casesPath: positionals[0]!, root, provider: values.provider, modes, variant: variantOf(values),
      recorded: values.recorded, record: values.record, replay: values.replay, limit,
    });
    const saved = values.save ? saveRun(run, root) : null;
    if (run.info.source === 'replay') process.stderr.write(`pico eval: replayed from ${values.replay}; no model was called\n`);
    if (values.record) process.stderr.write(`pico eval: recorded ${run.results.length} cases into ${values.record}\n`);
    emit(json, { ...jsonReport(run.info, run.summary, run.results), ...(saved ? { saved } : {}) }, () =>
      renderTable(run.info, run.summary) + (saved ? `\n\nsaved into manifests/providers/${run.provider!.id}.json "measured":\n${saved.map((s) => `  ${s.capability} ${s.schema}: ${s.measurement.pass_rate} over ${s.measurement.n} cases (${s.measurement.mode})`).join('\n')}` : ''));
    return EXIT.ok;
  } catch (e) {
    if (e instanceof EvalInputError) {
      process.stderr.write(`pico eval: ${e.message}\n`);
      return EXIT.usage;
    }
    if (e instanceof ProviderUnavailable) {
      process.stderr.write(`pico eval: the provider cannot run: ${e.message}\n`);
      return EXIT.negative;
    }
    throw e;
  }
}

/** `pico eval --goals FILE`: the agent measured on a goal file (src/eval/goals/). */
async function goalsMain(values: { goals?: string; only?: string; root?: string; json?: boolean; 'plans-only'?: boolean; provider?: string; recorded?: boolean; replay?: string; record?: string; modes?: string }, positionals: string[], limit: number | undefined): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`--goals FILE takes no case file (got ${positionals.join(' ')})\nusage: ${USAGE}`);
  const other = (['provider', 'recorded', 'replay', 'record', 'modes'] as const).filter((k) => values[k] !== undefined);
  if (other.length) throw new UsageError(`--goals measures the agent's planning; --${other.join(', --')} belong to the provider comparison\nusage: ${USAGE}`);
  let only: RegExp | undefined;
  try {
    only = values.only === undefined ? undefined : new RegExp(values.only);
  } catch (e) {
    throw new UsageError(`--only: not a regular expression (${(e as Error).message})`);
  }
  try {
    const { evaluateGoals, goalJson, renderGoalTable } = await import('../eval/goals/index.js');
    const run = await evaluateGoals(values.goals!, { ...(values.root !== undefined ? { from: path.resolve(values.root) } : {}), ...(limit ? { limit } : {}), ...(only ? { only } : {}), answers: values['plans-only'] !== true });
    emit(values.json === true, goalJson(run), () => renderGoalTable(run));
    return EXIT.ok;
  } catch (e) {
    if (e instanceof EvalInputError) {
      process.stderr.write(`pico eval: ${e.message}\n`);
      return EXIT.usage;
    }
    throw e;
  }
}
