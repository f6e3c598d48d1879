/**
 * The report's running totals: one session's events folded into counts that
 * stay small however many sessions pass through.
 *
 * `collect.ts` walks the ledgers and hands each one here whole; nothing of a
 * session is kept after `add` returns except counters and, per provider, the
 * list of call durations (numbers, for the percentiles). Failure signatures
 * and remedies use memory's own rules (signature.ts, resolution.ts), so the
 * report and `pico failures report` group and resolve failures alike. Fields
 * are read loosely (a wrong type reads as absent): ledgers are untrusted input
 * and may come from another implementation. This module reads no file and
 * escapes nothing; the page does that.
 */
import { FAILURE_KIND } from '../ledger/events.js';
import { resolve, type ControlAt, type FactAt, type FailureAt } from '../memory/resolution.js';
import { detailOf, SessionFailures } from '../memory/failure-events.js';
import { normaliseDetail } from '../memory/signature.js';
import { PROVIDER_FAULT_KINDS } from '../memory/views.js';

export type Event = Record<string, unknown> & { type: string; seq: number };

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
const FAULTS: ReadonlySet<string> = new Set(PROVIDER_FAULT_KINDS);
const CONTROL_TYPES: ReadonlySet<string> = new Set(['escalated', 'plan_created', 'declined', 'answer_sent']);

/** The UTC day of an ISO time (`YYYY-MM-DD`), or null when it is not one. */
export function dayOf(t: unknown): string | null {
  return typeof t === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(t) ? t.slice(0, 10) : null;
}

/** The Monday (UTC) of a day's ISO week, as `YYYY-MM-DD`. */
export function weekOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

/** Nearest-rank percentile of sorted numbers (the rule of memory's v_cost). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((sorted.length * p) / 100) - 1)]!;
}

/** The kind of a ladder fix: its first word ("renamed", "dropped", "read"…), the sentence's verb. */
export function fixKind(text: string): string {
  return /^[a-z]+/i.exec(text.trim())?.[0]?.toLowerCase() ?? 'other';
}

const bump = <K>(m: Map<K, number>, k: K, by = 1): void => void m.set(k, (m.get(k) ?? 0) + by);

interface Signature { kind: string; signature: string; seen: number; sessions: Set<string>; remedies: Map<string, number>; untrusted: number; last: string }
interface Gap { capability: string; schema: string; seen: number; sessions: Set<string>; declined: number; filters: Map<string, number>; last: string }
interface Fixes { facts: Map<string, number>; failed: Map<string, number> }
/** A job that ended declined: its goal (the operator's T0 text), why, and the failure kinds on the way, once. */
export interface Declined { session: string; t: string; goal: string; reason: string; kinds: string[] }

export class Accumulator {
  readonly outcomes = new Map<string, number>();
  /** day \u0000 outcome -> jobs */
  readonly jobsByDay = new Map<string, number>();
  readonly durations = new Map<string, { all: number[]; failed: number }>();
  /** period \u0000 provider \u0000 schema -> [ok, failed] */
  readonly passes = new Map<string, [number, number]>();
  readonly signatures = new Map<string, Signature>();
  readonly gaps = new Map<string, Gap>();
  /** provider -> fix text (normalised) -> counts on facts and on failed attempts */
  readonly fixes = new Map<string, Fixes>();
  /** every declined job, one each (its failures are not spread over the signatures) */
  readonly declined: Declined[] = [];
  /** jobs counted: sessions folded, and jobs known from result.json alone */
  jobs = 0;
  events = 0;
  facts = 0;
  failures = 0;
  calls = 0;
  first: string | null = null;
  last: string | null = null;

  constructor(private readonly period: 'day' | 'week') {}

  /** Fold one session; `fallbackOutcome` (result.json's, e.g. cancelled) stands when no answer was sent. */
  add(session: string, events: readonly Event[], fallbackOutcome: string | null): void {
    const start = dayOf(events[0]?.t);
    let outcome: string | null = null;
    const failures: (FailureAt & { kind: string; signature: string; untrusted: boolean; t: string; event: Event })[] = [];
    const facts: FactAt[] = [];
    const controls: ControlAt[] = [];
    let goal = '';
    let reason: string | null = null;
    // which events are failures to count: memory's own rule (a step's closing record of a failure
    // counted already, a step a cancel or a spent budget left unrun, a person's denial are not)
    const counted = new SessionFailures();
    for (const e of events) {
      this.events++;
      const t = str(e.t);
      if (t !== null && dayOf(t) !== null) {
        if (this.first === null || t < this.first) this.first = t;
        if (this.last === null || t > this.last) this.last = t;
      }
      const provider = str(e.provider);
      const schema = str(e.schema) ?? '?';
      const period = this.periodOf(t);
      if (Object.hasOwn(FAILURE_KIND, e.type)) {
        const kind = counted.kindOf(e);
        if (kind === null) continue;
        this.failures++;
        const signature = normaliseDetail(detailOf(e));
        failures.push({ seq: e.seq, step: str(e.step), provider, kind, signature, untrusted: e.detail_trust !== 'T0' && e.detail_trust !== 'T2', t: t ?? '', event: e });
        if (provider !== null && FAULTS.has(kind) && period !== null) this.pass(period, provider, schema, 1);
        if (provider !== null) this.fixesOf(provider, e.fixes, 'failed');
        continue;
      }
      switch (e.type) {
        case 'fact_added':
          this.facts++;
          facts.push({ seq: e.seq, step: str(e.step), provider });
          if (provider !== null && period !== null) this.pass(period, provider, schema, 0);
          if (provider !== null) this.fixesOf(provider, e.fixes, 'facts');
          break;
        case 'provider_called': {
          const ms = num(e.duration_ms);
          if (provider === null || ms === null) break;
          this.calls++;
          let d = this.durations.get(provider);
          if (!d) this.durations.set(provider, (d = { all: [], failed: 0 }));
          d.all.push(ms);
          if (e.outcome !== 'ok') d.failed++;
          break;
        }
        case 'user_input':
          goal = str(e.text) ?? goal;
          break;
        case 'declined':
          reason = str(e.reason) ?? reason;
          break;
        case 'answer_sent':
          outcome = str(e.outcome) ?? outcome;
          reason ??= outcome === 'declined' ? str(e.text) : null;
          break;
      }
      if (CONTROL_TYPES.has(e.type)) {
        controls.push({ seq: e.seq, type: e.type, step: str(e.step), target: str(e.to), outcome: str(e.outcome) });
      }
    }
    const ended = outcome ?? fallbackOutcome ?? 'unfinished';
    this.outcome(start, ended);
    // a declined goal is one row with the kinds of failure that led there, not one signature per kind
    if (ended === 'declined') this.declined.push({ session, t: str(events[0]?.t) ?? '', goal, reason: reason ?? '', kinds: [...new Set(failures.map((f) => f.kind))] });
    for (const f of failures) {
      const remedy = resolve(f, facts, controls).resolution ?? 'open';
      if (ended !== 'declined') this.signature(session, f, remedy);
      if (f.kind === 'capability_gap') this.gap(session, f.event, f.t, remedy);
    }
  }

  /** Count a job that has a result but no ledger (cancelled before it started, say), on the day of `t`. */
  addResultOnly(outcome: string, t: string): void {
    this.outcome(dayOf(t), outcome);
  }

  private outcome(day: string | null, outcome: string): void {
    this.jobs++;
    bump(this.outcomes, outcome);
    if (day !== null) bump(this.jobsByDay, `${day}\u0000${outcome}`);
  }

  private periodOf(t: string | null): string | null {
    const day = dayOf(t);
    return day === null ? null : this.period === 'day' ? day : weekOf(day);
  }

  private pass(period: string, provider: string, schema: string, index: 0 | 1): void {
    const key = `${period}\u0000${provider}\u0000${schema}`;
    let p = this.passes.get(key);
    if (!p) this.passes.set(key, (p = [0, 0]));
    p[index]++;
  }

  private fixesOf(provider: string, fixes: unknown, where: keyof Fixes): void {
    if (!Array.isArray(fixes)) return;
    let f = this.fixes.get(provider);
    for (const text of fixes) {
      if (typeof text !== 'string' || text.length === 0) continue;
      if (!f) this.fixes.set(provider, (f = { facts: new Map(), failed: new Map() }));
      bump(f[where], normaliseDetail(text));
    }
  }

  private signature(session: string, f: { kind: string; signature: string; untrusted: boolean; t: string }, remedy: string): void {
    const key = `${f.kind}\u0000${f.signature}`;
    let s = this.signatures.get(key);
    if (!s) this.signatures.set(key, (s = { kind: f.kind, signature: f.signature, seen: 0, sessions: new Set(), remedies: new Map(), untrusted: 0, last: '' }));
    s.seen++;
    s.sessions.add(session);
    bump(s.remedies, remedy);
    if (f.untrusted) s.untrusted++;
    if (f.t > s.last) s.last = f.t;
  }

  private gap(session: string, e: Event, t: string, remedy: string): void {
    const capability = str(e.capability) ?? '?';
    const schema = str(e.schema) ?? '?';
    const key = `${capability}\u0000${schema}`;
    let g = this.gaps.get(key);
    if (!g) this.gaps.set(key, (g = { capability, schema, seen: 0, sessions: new Set(), declined: 0, filters: new Map(), last: '' }));
    g.seen++;
    g.sessions.add(session);
    if (t > g.last) g.last = t;
    if (remedy === 'declined') g.declined++;
    const rejected = Array.isArray(e.rejected) ? e.rejected : [];
    if (rejected.length === 0) bump(g.filters, 'no provider implements it');
    for (const r of rejected) {
      const filter = str((r as { filter?: unknown } | null)?.filter);
      if (filter !== null) bump(g.filters, filter);
    }
  }
}
