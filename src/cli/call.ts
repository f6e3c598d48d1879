/**
 * `pico call CAPABILITY --schema ID --input FILE [--provider ID] [--trust T1] [--root DIR] [--json]`:
 * one reduce step through the policy and the validation ladder, recorded as a
 * session like any other. Prints `{ok, fact, provider, schema, trust, fixes, session}`
 * or `{ok: false, kind, level, error, session}`.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readLedger } from '../ledger/ledger.js';
import { newSessionId } from '../ledger/session-id.js';
import { createLogger } from '../base/log.js';
import { LEVEL_OF, type LadderFailureKind } from '../ladder/types.js';
import { JobError, parseJob } from '../runtime/job.js';
import { checkJobAgainstRegistry, describeProblems } from '../runtime/job-check.js';
import { writeFileAtomicSync } from '../base/durable-file.js';
import { openRuntime } from '../root/runtime.js';
import { parseTrust } from '../base/trust.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico call CAPABILITY --schema ID --input FILE [--provider ID] [--trust T0|T1|T2] [--root DIR] [--json]';
const KIND_OF: Record<string, LadderFailureKind | 'gap' | 'tool' | 'semantic'> = {
  grammar_failed: 'grammar', validation_failed: 'schema', range_failed: 'range', crosscheck_failed: 'crosscheck',
  capability_gap: 'gap', tool_failed: 'tool', tool_timeout: 'tool', tool_empty: 'tool', critic_rejected: 'semantic',
  breaker_tripped: 'tool', budget_exhausted: 'tool',
};

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...rootOption, ...jsonOption, schema: { type: 'string' }, input: { type: 'string' }, provider: { type: 'string' }, trust: { type: 'string' },
  }, USAGE);
  if (positionals.length !== 1 || !values.schema || !values.input) throw new UsageError(`name a capability, --schema and --input\nusage: ${USAGE}`);
  const root = rootOf(values);
  const capability = positionals[0]!;
  const trust = parseTrust(values.trust ?? 'T1', '--trust');
  const inputPath = resolve(values.input);
  let text: string;
  try {
    text = readFileSync(inputPath, 'utf8');
  } catch (err) {
    throw new UsageError(`--input ${inputPath}: ${(err as Error).message}`);
  }
  const job = parseJob({
    job: 'job@1', goal: `pico call ${capability} -> ${values.schema}`, budget_class: 'attended',
    label: values.provider ? `pico call --provider ${values.provider}` : 'pico call',
    plan: [{ step: 'call', capability, schema: values.schema, from: [] }],
  }, 'pico call');
  const rt = await openRuntime(root, { log: createLogger({ to: 'stderr', level: 'warn' }) });
  try {
    // names this root does not know are the user's mistake (exit 2), not a refused value
    const problems = checkJobAgainstRegistry(job, rt.registry);
    if (values.provider && !rt.registry.providers.has(values.provider)) {
      problems.push({ step: 'call', problem: `unknown provider "${values.provider}" (known: ${[...rt.registry.providers.keys()].sort().join(', ') || '(none)'})`, fix: `name a provider from manifests/providers/, or leave --provider out to let the policy choose` });
    }
    if (problems.length > 0) throw new JobError(describeProblems(problems), problems.map((p) => p.fix).join('; '));
    const id = newSessionId();
    const dir = rt.sessionDir(id);
    mkdirSync(dir, { recursive: true });
    writeFileAtomicSync(join(dir, 'job.json'), JSON.stringify(job, null, 2) + '\n');
    await rt.runSession(id, {
      job, inputs: { call: { text, trust, label: `input:${inputPath.split('/').pop()}` } },
      ...(values.provider ? { onlyProvider: values.provider } : {}),
    });
    const events = readLedger(dir);
    const fact = events.find((e) => e.type === 'fact_added');
    if (fact && fact.type === 'fact_added') {
      const out = { ok: true, fact: fact.fact, provider: fact.provider, schema: fact.schema, trust: fact.trust, confidence: fact.confidence, fixes: fact.fixes, session: id };
      emit(!!values.json, out, () => `${JSON.stringify(fact.fact, null, 2)}\nprovider ${fact.provider}, trust ${fact.trust}, fixes: ${fact.fixes.join('; ') || 'none'}`);
      return EXIT.ok;
    }
    // The last classified failure says why; fall back to the step's give-up.
    const last = [...events].reverse().find((e) => e.type in KIND_OF) ?? [...events].reverse().find((e) => e.type === 'step_failed');
    const kind = last ? KIND_OF[last.type] ?? 'failed' : 'failed';
    const level = kind in LEVEL_OF ? LEVEL_OF[kind as LadderFailureKind] : null;
    const error = last && 'error' in last ? last.error : 'no fact was produced';
    emit(!!values.json, { ok: false, kind, level, error, session: id }, () => `refused (${kind}${level ? `, level ${level}` : ''}): ${error}`);
    return EXIT.negative;
  } finally {
    await rt.close();
  }
}
