/**
 * Events to rows: the rules ingest applies to each ledger event.
 *
 * One function per concern: `applyEvents` maps a session's new events onto
 * the tables (inheriting trust, tool and schema from the step's
 * `step_started`, and never upgrading trust), and `resolveSession` recomputes
 * what followed each failure of the session. Bookkeeping (which bytes were
 * read, transactions) is `ingest.ts`; the result record of one session
 * (`IngestResult`) is here because both fill it.
 */
import { TRUST_LEVELS, weakest, type Trust } from '../base/trust.js';
import type { EpisodeRow, Event, IdentityOf, IngestStatements, StepInfo } from './ingest-sql.js';
import { projectFields, searchText } from './projection.js';
import { resolve, type ControlAt, type FactAt } from './resolution.js';
import { FAILURE_KIND } from '../ledger/events.js';
import { detailOf, SessionFailures } from './failure-events.js';
import { normaliseDetail } from './signature.js';
import { entryOf, type CachedStep, type ToolSide } from './trajectory.js';
import type { HeldFields } from './ingest-rows.js';

export type IngestStatus = 'new' | 'grown' | 'unchanged' | 'rewritten' | 'missing';

/** What ingesting one session did; `applyEvents` adds to its counts, ingest.ts fills the rest. */
export interface IngestResult {
  session: string;
  status: IngestStatus;
  events: number;
  facts: number;
  failures: number;
  /** complete lines that were not events, plus events whose seq was already consumed */
  skipped: number;
  /** an unfinished last line was left for the next ingest */
  tornTail: boolean;
}

// field readers for foreign ledgers: a wrong type reads as absent
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const FAILURE_TYPES: Readonly<Record<string, string>> = FAILURE_KIND;
const trustOf = (v: unknown): Trust | null => (TRUST_LEVELS as readonly unknown[]).includes(v) ? (v as Trust) : null;

/** Turn a session's new events into rows, then refresh its episode and resolutions. */
export function applyEvents(
  s: IngestStatements, session: string, events: Event[], steps: Map<string, StepInfo>, result: IngestResult,
  identity: IdentityOf = () => null, composition: (hash: string | null) => ToolSide | null = () => null,
  /** the database holds nothing of this session yet: no row of it to look up */
  unseen = false,
  /** where its fact_field rows go: held for the batch, which inserts them (ingest-rows.ts) */
  held: HeldFields,
): void {
  // a session seen for the first time gets its episode row once, at the end, with everything in it
  const known = unseen ? undefined : (s.episode.get(session) as EpisodeRow | undefined);
  const ep: EpisodeRow = known ?? {
    id: 0, goal: null, budget_class: null, outcome: null, composition: null, started_at: null, ended_at: null,
    fact_count: 0, failure_count: 0, gap_count: 0,
  };
  const hadGoal = ep.goal !== null;
  let touched = false; // facts, failures or control events: resolutions may change
  // a session new to the database has no rows but this chunk's: its resolutions are worked out from them, not read back
  const mine: SessionRows | null = unseen ? { failures: [], facts: [], controls: [] } : null;
  // which events are failures to count: the rule the report counts by too (failure-events.ts)
  const failures = new SessionFailures(unseen ? [] : s.sessionFailureWords.all(session) as { step: string | null; detail: string | null }[]);
  // the session's trajectory row may exist only when it was seen before or a plan of this chunk made it
  let planned = !unseen;

  for (const e of events) {
    const t = str(e.t);
    if (ep.started_at === null && t) ep.started_at = t;
    const step = str(e.step);
    const info = step !== null ? steps.get(step) : undefined;
    if (Object.hasOwn(FAILURE_TYPES, e.type)) {
      const kind = failures.kindOf(e);
      if (kind === null) continue; // a record of a failure counted already, a cancelled step, a person's decision
      const detail = detailOf(e);
      const own = trustOf(e.detail_trust);
      const known = [own, info?.trust].filter((x): x is Trust => x !== null && x !== undefined);
      const r = s.failure.run(
        session, e.seq, t, e.type, kind, step, str(e.capability) ?? info?.capability ?? null,
        str(e.tool) ?? info?.tool ?? null, str(e.provider), str(e.schema) ?? info?.schema ?? null,
        normaliseDetail(detail), detail, weakest(known, 'T1'), Number.isInteger(e.attempt) ? e.attempt : 0,
        identity(ep.composition, str(e.provider)),
      );
      result.failures += r.changes;
      if (mine && r.changes) mine.failures.push({ id: Number(r.lastInsertRowid), seq: e.seq, step, provider: str(e.provider), resolution: null, resolved_by: null });
      if (kind === 'capability_gap') ep.gap_count += r.changes;
      touched = true;
      continue;
    }
    switch (e.type) {
      case 'fact_added': {
        const own = trustOf(e.trust);
        const known = [own, info?.trust].filter((x): x is Trust => x !== null && x !== undefined);
        const schema = str(e.schema) ?? info?.schema ?? null;
        const subject = str(e.subject);
        const trust = weakest(known, 'T1');
        const provider = str(e.provider);
        const r = s.fact.run(
          session, e.seq, step, provider, str(e.capability) ?? info?.capability ?? null, schema, trust,
          subject, t, str(e.valid_until), num(e.confidence), JSON.stringify(e.fact ?? null), identity(ep.composition, provider),
        );
        if (r.changes === 0) break;
        const id = Number(r.lastInsertRowid);
        const fields = projectFields(e.fact);
        for (let ord = 0; ord < fields.length; ord++) {
          const f = fields[ord]!;
          held.values.push(id, ord, f.key, f.num, f.txt);
        }
        held.added();
        s.factFts.run(id, searchText(fields, [subject, schema]), trust.toLowerCase());
        result.facts++;
        mine?.facts.push({ seq: e.seq, step, provider });
        touched = true;
        break;
      }
      case 'step_started': {
        if (step === null) break;
        const next: StepInfo = {
          tool: str(e.tool), trust: trustOf(e.trust) ?? 'T1',
          capability: str(e.capability), schema: str(e.schema),
        };
        steps.set(step, next);
        break;
      }
      case 'provider_called': {
        const provider = str(e.provider);
        const ms = num(e.duration_ms);
        if (provider === null || ms === null) break;
        s.call.run(session, e.seq, step, provider, str(e.capability), str(e.schema) ?? info?.schema ?? null,
          ms, str(e.outcome) ?? 'ok', Number.isInteger(e.attempt) ? e.attempt : null,
          typeof e.model_call === 'boolean' ? Number(e.model_call) : null, t, identity(ep.composition, provider));
        break;
      }
      case 'composition':
        ep.composition = str(e.hash) ?? ep.composition;
        break;
      case 'user_input':
        ep.goal ??= str(e.text);
        ep.budget_class ??= str(e.budget_class);
        break;
      case 'escalated':
      case 'plan_created':
      case 'declined':
      case 'answer_sent': {
        const outcome = str(e.outcome);
        const c = s.control.run(session, e.seq, e.type, step, str(e.to), outcome);
        if (mine && c.changes) mine.controls.push({ seq: e.seq, type: e.type, step, target: str(e.to), outcome });
        if (e.type === 'plan_created') planned = keepPlan(s, session, e, ep.goal, composition(ep.composition)) || planned;
        if (e.type === 'answer_sent') {
          if (outcome === 'answered' && planned) s.trajectoryAnswered.run(t ?? '', session);
          ep.outcome = outcome ?? 'answered';
          ep.ended_at = t ?? ep.ended_at;
        } else if (e.type === 'declined') ep.outcome ??= 'declined';
        touched = true;
        break;
      }
      case 'cache_dropped':
        if (str(e.key) !== null) s.trajectoryDrop.run(session, e.seq, str(e.key), t ?? '');
        break;
      default:
        break; // a type memory does not index
    }
  }
  // resolutions are of failures: a session that never had one has none to resolve
  if (touched && ep.failure_count + result.failures > 0) resolveSession(s, session, mine ?? undefined);
  ep.fact_count += result.facts;
  ep.failure_count += result.failures;
  const row = [ep.goal, ep.budget_class, ep.outcome, ep.composition, ep.started_at, ep.ended_at, ep.fact_count, ep.failure_count, ep.gap_count];
  if (known) s.saveEpisode.run(...row, ep.id);
  else ep.id = Number(s.newEpisode.run(session, ...row).lastInsertRowid);
  if (!hadGoal && ep.goal !== null) s.episodeFts.run(ep.id, ep.goal);
}

/** A goal-only plan becomes the session's trajectory entry (counted once the session answers); true when it wrote one. */
function keepPlan(s: IngestStatements, session: string, e: Event, goal: string | null, c: ToolSide | null): boolean {
  const source = str(e.source);
  if (goal === null || source === null || source === 'operator' || !Array.isArray(e.steps)) return false;
  const entry = c ? entryOf(goal, e.steps as CachedStep[], c) : null;
  if (entry) s.trajectory.run(session, e.seq, entry.intent, JSON.stringify(entry.tools), entry.key, JSON.stringify(entry.steps));
  return entry !== null;
}

/** A session's failures, facts and control events, as resolution reads them. */
interface SessionRows {
  failures: (FactAt & { id: number; resolution: string | null; resolved_by: string | null })[];
  facts: FactAt[];
  controls: ControlAt[];
}

/**
 * Recompute the resolution of every failure of a session; write only the ones that changed.
 * `rows`: every row the session has, when the caller holds them (a session new to the database).
 */
export function resolveSession(s: IngestStatements, session: string, rows?: SessionRows): void {
  const failures = rows?.failures ?? s.sessionFailures.all(session) as SessionRows['failures'];
  if (failures.length === 0) return;
  const facts = rows?.facts ?? s.sessionFacts.all(session) as FactAt[];
  const controls = rows?.controls ?? s.sessionControls.all(session) as ControlAt[];
  for (const f of failures) {
    const r = resolve(f, facts, controls);
    if (r.resolution !== f.resolution || r.resolved_by !== f.resolved_by) {
      s.setResolution.run(r.resolution, r.resolved_by, f.id);
    }
  }
}
