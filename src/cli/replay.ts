/**
 * `pico replay SESSION [--root DIR] [--json] [--keep]`: re-run a finished
 * session from its recorded inputs and blobs and diff the ledgers (`--all`:
 * every session of the root, a line each, exit 0 only when all are identical). Exit 0
 * when identical; 1 with the first difference (or the composition
 * difference, when the session was recorded under another composition);
 * 1 too, with the damage named, when the session is damaged (pico check);
 * 2 when it has not finished. With `--policy FILE` (and `--all` for every
 * session of the root) it is the counterfactual replay instead: see
 * replay-policy.ts.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkSession } from '../check/session.js';
import { daemonPaths } from '../daemon/paths.js';
import { LEDGER_FILE } from '../ledger/ledger.js';
import { isSessionId } from '../ledger/session-id.js';
import { createLogger } from '../base/log.js';
import { reportDamage } from './damage.js';
import { replaySession } from '../replay/replay.js';
import { openRuntime } from '../root/runtime.js';
import { counterfactualReport, describeCounterfactual } from './replay-policy.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico replay (SESSION | --all) [--root DIR] [--json] [--keep] | pico replay (SESSION | --all) --policy FILE [--root DIR] [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption, keep: { type: 'boolean' }, policy: { type: 'string' }, all: { type: 'boolean' } }, USAGE);
  if (values.policy !== undefined) return counterfactual(values, values.policy, positionals);
  if (values.all) return replayAll(values, positionals);
  if (positionals.length !== 1) throw new UsageError(`name one session\nusage: ${USAGE}`);
  const id = positionals[0]!;
  const dir = join(daemonPaths(rootOf(values)).sessions, id);
  if (!isSessionId(id) || !existsSync(join(dir, LEDGER_FILE))) throw new UsageError(`${join(dir, LEDGER_FILE)} does not exist; name a session folder under sessions/ (pico status lists recent ones)`);
  // a damaged session cannot be compared: say what is damaged instead of a diff
  const check = checkSession(dir, id);
  if (reportDamage('replay', check)) return EXIT.negative;
  if (check.state !== 'answered') throw new UsageError(`session ${id} has not finished (${check.state}); replay compares finished sessions — wait for it, or watch it: pico watch ${id}`);
  const rt = await openRuntime(rootOf(values), { log: createLogger({ to: 'stderr', level: 'warn' }) });
  try {
    const r = await replaySession(rt, positionals[0]!, { keep: !!values.keep });
    emit(!!values.json, r, () => {
      if (r.compositionDiffers) return `refused: session ${r.session} was recorded under another composition; differences:\n  ${r.compositionDiffers.join('\n  ')}`;
      if (r.identical) return `identical: ${r.lines.original} events replayed byte for byte`;
      const d = r.firstDifference!;
      return `differs at line ${d.line} (original ${r.lines.original} lines, replay ${r.lines.replayed}):\n- ${d.original ?? '(none)'}\n+ ${d.replayed ?? '(none)'}`;
    });
    return r.identical ? EXIT.ok : EXIT.negative;
  } finally {
    await rt.close();
  }
}

/** One finished session's deterministic replay, as `--all` lists it. */
interface AllRow { session: string; result: 'identical' | 'differs' | 'refused' | 'skipped'; detail: string }

/**
 * `--all`: replay every session of the root, one line each, and the totals; exit 0 only when every
 * finished session is identical. Unfinished ones are skipped and damaged ones named, not replayed.
 */
async function replayAll(values: { root?: string; json?: boolean; keep?: boolean }, positionals: string[]): Promise<number> {
  if (positionals.length !== 0) throw new UsageError(`name one session, or --all for every session of the root\nusage: ${USAGE}`);
  const sessions = daemonPaths(rootOf(values)).sessions;
  const ids = existsSync(sessions) ? readdirSync(sessions).filter((n) => isSessionId(n) && existsSync(join(sessions, n, LEDGER_FILE))).sort() : [];
  const rows: AllRow[] = [];
  const rt = await openRuntime(rootOf(values), { log: createLogger({ to: 'stderr', level: 'warn' }) });
  try {
    for (const id of ids) {
      const check = checkSession(join(sessions, id), id);
      if (check.problems.length) { rows.push({ session: id, result: 'skipped', detail: `damaged: ${check.problems[0]!.problem} (pico check ${id})` }); continue; }
      if (check.state !== 'answered') { rows.push({ session: id, result: 'skipped', detail: `not finished (${check.state})` }); continue; }
      const r = await replaySession(rt, id, { keep: !!values.keep });
      rows.push(r.compositionDiffers ? { session: id, result: 'refused', detail: `recorded under another composition: ${r.compositionDiffers.join(', ')}` }
        : r.identical ? { session: id, result: 'identical', detail: `${r.lines.original} events` }
        : { session: id, result: 'differs', detail: `at line ${r.firstDifference!.line}: pico replay ${id} shows it` });
    }
  } finally {
    await rt.close();
  }
  const count = (k: AllRow['result']) => rows.filter((r) => r.result === k).length;
  emit(!!values.json, { sessions: rows, identical: count('identical'), differs: count('differs'), refused: count('refused'), skipped: count('skipped') }, () =>
    [...rows.map((r) => `${r.result.padEnd(9)}  ${r.session}  ${r.detail}`),
      `${rows.length} session(s): ${count('identical')} identical, ${count('differs')} differ, ${count('refused')} refused, ${count('skipped')} skipped`].join('\n'));
  return count('differs') + count('refused') === 0 ? EXIT.ok : EXIT.negative;
}

async function counterfactual(values: { root?: string; json?: boolean; keep?: boolean; all?: boolean }, policy: string, positionals: string[]): Promise<number> {
  if (values.keep) throw new UsageError(`--keep is for the deterministic replay; a counterfactual replay keeps no scratch ledger\nusage: ${USAGE}`);
  if (values.all ? positionals.length !== 0 : positionals.length !== 1) throw new UsageError(`name one session, or --all for every session of the root\nusage: ${USAGE}`);
  const rt = await openRuntime(rootOf(values), { log: createLogger({ to: 'stderr', level: 'warn' }) });
  try {
    const r = await counterfactualReport(rt, values.all ? null : positionals[0]!, policy);
    emit(!!values.json, r, () => describeCounterfactual(r, !!values.all));
    return EXIT.ok;
  } finally {
    await rt.close();
  }
}
