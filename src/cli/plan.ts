/**
 * `pico plan GOAL [--provider ID] [--budget-class C] [--root DIR] [--json]`: a dry run of planning.
 *
 * Plans the goal exactly as a goal-only job would be planned — same retrieval,
 * same playbooks, same planner selection, grammar and checks — in a scratch
 * session that is removed afterwards, and stops before the first step: no
 * tool runs. Prints the retrieved tools with their scores, the planner's
 * context (its prompt) and token count, which planner made the plan and the
 * plan; `--json` prints `{retrieved, prompt_tokens, provider, source, plan}`
 * plus `prompt`, `level`, `playbooks` and, when no plan was made, `error` — and then still what
 * retrieval ranked (per part when the goal has several) and the prompt's estimated tokens.
 * Exit 0 with a plan, 1 when the goal could not be planned.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobStore } from '../ledger/blobs.js';
import { readLedger } from '../ledger/ledger.js';
import { newSessionId } from '../ledger/session-id.js';
import { createLogger } from '../base/log.js';
import { parseJob } from '../runtime/job.js';
import { openRuntime } from '../root/runtime.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';
import { retrievedParts } from '../agent/planning.js';
import { loadPlaybooks } from '../agent/playbooks.js';
import { AGENT_DEFAULTS } from '../agent/settings.js';
import { estimator } from '../agent/tokens.js';
import { folderSource } from '../registry/load.js';

const USAGE = 'pico plan GOAL [--provider ID] [--budget-class interactive|attended|background|batch] [--root DIR] [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption, provider: { type: 'string' }, 'budget-class': { type: 'string' } }, USAGE);
  if (positionals.length === 0) throw new UsageError(`name the goal\nusage: ${USAGE}`);
  const goal = positionals.join(' ');
  let job;
  try {
    job = parseJob({ job: 'job@1', goal, budget_class: values['budget-class'] ?? 'attended', label: 'pico plan' }, 'pico plan');
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${USAGE}`);
  }
  const root = rootOf(values);
  const rt = await openRuntime(root, { log: createLogger({ to: 'stderr', level: 'warn' }) });
  const scratch = mkdtempSync(join(tmpdir(), 'pico-plan-'));
  try {
    if (values.provider && !rt.registry.providers.has(values.provider)) throw new UsageError(`--provider ${values.provider}: no such provider in ${root}/manifests/providers; see pico manifests check`);
    await rt.runSession(newSessionId(), { job, sessionDir: scratch, planOnly: true, ...(values.provider ? { onlyProvider: values.provider } : {}) });
    const events = readLedger(scratch);
    const blobs = new BlobStore(join(scratch, 'blobs'));
    const created = events.find((e) => e.type === 'plan_created');
    const contexts = events.filter((e) => e.type === 'tool_output' && e.step.startsWith('@'));
    const last = contexts[contexts.length - 1];
    const prompt = last && last.type === 'tool_output' ? blobs.read(last) : null;
    const problems = events.filter((e) => 'error' in e && e.step?.startsWith('@')).map((e) => `${e.type}: ${(e as { error: string }).error}`);
    const out = created && created.type === 'plan_created'
      ? {
          ok: true, retrieved: created.retrieved ?? [], prompt_tokens: created.prompt_tokens ?? null, tokens_exact: created.tokens_exact ?? false,
          provider: created.provider ?? null, source: created.source ?? null, level: created.level ?? null, playbooks: created.playbooks ?? [],
          plan: created.steps, ...(created.parts ? { parts: created.parts } : {}), prompt, attempts: problems,
        }
      : failed(goal, root, rt, prompt, problems);
    emit(!!values.json, out, () => human(out));
    return out.ok ? EXIT.ok : EXIT.negative;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await rt.close();
  }
}

/**
 * What a failed plan still shows: what retrieval ranked for each part of the goal (as planning
 * read it), the last planner prompt and its tokens (estimated; the planner's own tokenizer is not
 * loaded for a dry run that failed), and why.
 */
function failed(goal: string, root: string, rt: Awaited<ReturnType<typeof openRuntime>>, prompt: string | null, problems: string[]) {
  const playbooks = loadPlaybooks(folderSource(root), rt.registry.tools).playbooks;
  const parts = retrievedParts(goal, rt.registry, playbooks, AGENT_DEFAULTS.top_k, root);
  const retrieved: { name: string; score: number }[] = [];
  for (const p of parts) for (const r of p.retrieved) if (!retrieved.some((x) => x.name === r.name)) retrieved.push(r);
  return {
    ok: false, retrieved, ...(parts.length > 1 ? { parts } : {}), prompt_tokens: prompt ? estimator.count(prompt) : null, tokens_exact: false,
    provider: null, source: null, plan: null, prompt, error: problems.join('; ') || 'no plan was made',
  };
}

function human(o: Record<string, unknown>): string {
  const lines: string[] = [];
  const retrieved = (o.retrieved as { name: string; score: number }[]) ?? [];
  lines.push(`retrieved: ${retrieved.length ? retrieved.map((r) => `${r.name} (${r.score.toFixed(2)})`).join(', ') : '(none)'}`);
  if (Array.isArray(o.playbooks) && o.playbooks.length) lines.push(`playbooks: ${o.playbooks.join(', ')}`);
  if (o.prompt) lines.push(`prompt (${o.prompt_tokens ?? '?'} tokens${o.tokens_exact ? '' : ', estimated'}${o.level ? `, tools shown at the ${String(o.level)} level` : ''}):`, ...String(o.prompt).split('\n').map((l) => `  | ${l}`));
  if (!o.ok) {
    lines.push(`no plan: ${String(o.error)}`);
    return lines.join('\n');
  }
  const parts = o.parts as { text: string; steps?: string[]; window?: string; unchecked?: string }[] | undefined;
  if (parts && parts.length) {
    lines.push('parts:');
    parts.forEach((p, i) => lines.push(`  ${i + 1}. "${p.text}"${p.window ? ` (window: ${p.window})` : ''}: ${p.unchecked ?? (p.steps?.length ? p.steps.join(', ') : 'no step')}`));
  }
  lines.push(`planner: ${String(o.provider)} (${String(o.source)})`, 'plan:');
  for (const s of o.plan as { step: string; tool: string | null; args: Record<string, unknown>; capability: string; schema: string; from: string[] }[]) {
    lines.push(`  ${s.step}: ${s.tool ? `${s.tool} ${JSON.stringify(s.args)}` : `reduce ${s.from.join(', ')}`} → ${s.capability}/${s.schema}`);
  }
  return lines.join('\n');
}
