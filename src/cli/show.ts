/**
 * `pico show SESSION [--root DIR] [--json]`: the transcript of a session, one
 * readable line per event (transcript replay, design §2), the answer whole;
 * a long fact or error is cut and says how to see it, and `--full` cuts nothing. A damaged session
 * (see `pico check`) prints its intact events, then the damage on stderr,
 * and exits 1.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { visible, visibleText } from '../base/log-pretty.js';
import type { LedgerEvent } from '../ledger/events.js';
import { LEDGER_FILE } from '../ledger/ledger.js';
import { scanLedger } from '../ledger/scan.js';
import { checkSession } from '../check/session.js';
import { reportDamage } from './damage.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico show SESSION [--root DIR] [--full] [--json]';

/**
 * One line for a person: what happened in this event. A long value (a fact, an error) is cut at
 * 120 characters, and the cut says how much is left and how to see it (`rest`, e.g.
 * `pico show ID --full`); with `full` nothing is cut. The answer is never cut.
 */
export function describe(e: LedgerEvent, o: { full?: boolean; rest?: string } = {}): string {
  const rest = o.rest ?? `pico show ${e.session_id} --full`;
  const short = (v: unknown, n = 120) => {
    const s = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
    return o.full || s.length <= n ? s : `${s.slice(0, n)}… (${s.length - n} more characters: ${rest})`;
  };
  switch (e.type) {
    case 'composition': return `composition ${e.hash.slice(0, 19)} machine ${e.machine.slice(0, 19)}`;
    case 'user_input': return `goal (${e.budget_class}): ${short(e.text)}`;
    case 'policy_snapshot': return `policy snapshot of ${Object.keys(e.measurements).length} provider(s)`;
    case 'plan_created': {
      const by = e.source && e.source !== 'operator' ? ` (${e.replan ? `replan after ${e.replan.after} failed (${e.replan.kind}), ` : ''}${e.source === 'cache' ? `cache: the plan that answered ${e.cache?.entry ?? '?'}` : `${e.source} by ${e.provider ?? '?'}`}${e.retrieved?.length ? `; retrieved ${e.retrieved.map((r) => r.name).join(', ')}` : ''}${e.prompt_tokens != null ? `; ${e.prompt_tokens} prompt tokens` : ''})` : '';
      return `plan${by}: ${e.steps.map((s) => `${s.step}=${s.tool ?? 'facts'}→${s.capability}/${s.schema}`).join(', ')}`;
    }
    case 'step_started': return `${e.step} started: ${e.tool ?? 'facts'} → ${e.capability}/${e.schema} (input trust ${e.trust})`;
    case 'tool_output': return `${e.step} tool ${e.tool}: ${e.bytes} bytes in ${e.duration_ms} ms, exit ${e.exit_code}${e.truncated ? ' (truncated)' : ''}`;
    case 'provider_called': return `${e.step} ${e.provider} attempt ${e.attempt}: ${e.outcome} in ${e.duration_ms} ms`;
    case 'fact_added': return `${e.step} FACT ${e.schema} by ${e.provider} (${e.trust}, confidence ${e.confidence ?? '-'}${e.fixes.length ? `, fixes: ${e.fixes.join('; ')}` : ''}): ${short(e.fact)}`;
    case 'escalated': return `${e.step} escalated ${e.from} → ${e.to}: ${short(e.reason)}`;
    case 'tool_failed': case 'tool_empty': return `${e.step} ${e.type}${e.cause ? ` (${e.cause.plain})` : ''}: ${short(e.error)}`;
    case 'plan_extended': {
      const by = `${e.source}${e.provider ? ` by ${e.provider}` : ''}${e.part !== null ? `, part ${e.part + 1}` : ''}`;
      const added = e.steps.map((st) => {
        const b = e.because.filter((x) => x.adds === st.step);
        return `${st.step}=${st.tool ?? 'facts'} ${short(st.args, 80)} — looked further because ${[...new Set(b.map((x) => x.why))].join('; ')} (${b.map((x) => `${x.field} of fact #${x.seq}`).join(', ')})`;
      });
      return `follow-ups, round ${e.round} (${by}): ${added.join('; ')}`;
    }
    case 'cache_dropped': return `${e.step} gave up: the cached plan of ${e.entry} is dropped and the goal planned afresh (${short(e.reason)})`;
    case 'resumed': return `resumed after seq ${e.after_seq}`;
    case 'declined': return `declined: ${short(e.reason)}`;
    case 'approval_requested': return `${e.step} approval requested: ${e.reason}`;
    case 'approval_granted': return `${e.step} approval granted by ${e.by}`;
    case 'coverage': return `coverage: ${e.parts.map((p) => `"${short(p.text, 60)}" ${p.status}${p.from.length ? ` from ${sources(p.from)}` : ''}`).join('; ')}${e.stopped ? ` (${e.stopped})` : ''}`;
    case 'answer_sent': return `ANSWER [${e.outcome}] (${e.trust}, ${e.spent.wall_ms} ms, ${e.spent.model_calls} model calls):\n${e.text}${e.sentences ? `\nsentences and their sources:\n${e.sentences.map((s, i) => `  ${i + 1}. ${short(s.text)} <- ${s.from.length ? sources(s.from) : `fixed: ${s.fixed ?? '?'}`}${s.selection ? ` (${s.selection.kind}${s.selection.noun ? ` ${s.selection.noun}` : ''} from ${s.selection.field})` : ''}`).join('\n')}` : ''}`;
    default: return `${'step' in e ? `${e.step} ` : ''}${e.type}${'provider' in e && e.provider ? ` ${e.provider}` : ''}: ${short((e as { error?: string }).error ?? '')}`;
  }
}

/** A sentence's sources as the ledger names them: step#seq. */
const sources = (from: readonly { step: string; seq: number }[]): string => from.map((f) => `${f.step}#${f.seq}`).join(', ');

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption, full: { type: 'boolean' } }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`name one session\nusage: ${USAGE}`);
  const id = positionals[0]!;
  const root = rootOf(values);
  const dir = join(root, 'sessions', id);
  if (!existsSync(join(dir, LEDGER_FILE))) throw new UsageError(`${join(dir, LEDGER_FILE)} does not exist; name a session folder under sessions/`);
  // the intact part is printed either way; damage is reported beside it and makes the exit 1
  const check = checkSession(dir, id);
  let events: LedgerEvent[] = [];
  try {
    events = scanLedger(readFileSync(join(dir, LEDGER_FILE)), id).events;
  } catch {
    // unreadable (a folder where the ledger should be): the check above names it
  }
  const how = { full: !!values.full, rest: `pico show ${id} --root ${root} --full` };
  // ledger text is shown, never acted on by the terminal: control characters become escapes (the answer keeps its line breaks)
  const line = (e: LedgerEvent): string => `#${String(e.seq).padStart(3)} ${visible(e.t.slice(11, 23))} ${e.type === 'answer_sent' ? visibleText(describe(e, how)) : visible(describe(e, how))}`;
  emit(!!values.json, events, () => events.map(line).join('\n'));
  return reportDamage('show', check) ? EXIT.negative : EXIT.ok;
}
