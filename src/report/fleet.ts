/**
 * The report of a fleet hub (`pico report --fleet`): the same page, read from
 * the hub's copy of every box's ledgers, with the box as a column.
 *
 * Each box's sessions are collected exactly as a box collects its own
 * (collect.ts, over `fleet/<box>/sessions/` of the hub's root), so a box's
 * rows on the hub's page equal its own page's rows; this module only puts
 * the boxes side by side: counts are summed, per-provider and per-signature
 * rows are kept per box (a percentile or a pass rate is not summed across
 * boxes), jobs per day are summed (the chart stacks outcomes, the boxes table
 * splits them), and one line per box tells them apart. Which folders are a
 * hub's boxes is the fleet's to say (src/fleet/hub-views.ts); this module is
 * handed them and reads nothing else.
 */
import { collectReport, TOP_SIGNATURES, type BoxLine, type ReportData } from './collect.js';

export interface FleetCollectOptions {
  root: string;
  days: number;
  now?: Date;
  boxes: readonly { box: string; sessionsDir: string }[];
}

const sum = (a: Record<string, number>, b: Record<string, number>): Record<string, number> => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
};
const earliest = (a: string | null, b: string | null): string | null => (a === null ? b : b === null || a <= b ? a : b);
const latest = (a: string | null, b: string | null): string | null => (a === null ? b : b === null || a >= b ? a : b);

/** Collect every box's sessions on the hub and lay them side by side. */
export function collectFleetReport(o: FleetCollectOptions): ReportData {
  const now = o.now ?? new Date();
  const parts = o.boxes.map((b) => ({ box: b.box, d: collectReport({ root: o.root, days: o.days, now, sessionsDir: b.sessionsDir }) }));
  const base = collectReport({ root: o.root, days: o.days, now, sessionsDir: '' }); // the empty shape: window, period, zero counts
  const tag = <T extends object>(box: string, rows: readonly T[]): (T & { box: string })[] => rows.map((r) => ({ box, ...r }));
  const out: ReportData = { ...base, boxes: [] };
  const perDay = new Map<string, number>();
  for (const { box, d } of parts) {
    const c = out.counts;
    out.counts = {
      sessions: c.sessions + d.counts.sessions, events: c.events + d.counts.events, facts: c.facts + d.counts.facts,
      failures: c.failures + d.counts.failures, provider_calls: c.provider_calls + d.counts.provider_calls,
      capability_gaps: c.capability_gaps + d.counts.capability_gaps, by_outcome: sum(c.by_outcome, d.counts.by_outcome),
    };
    const l = out.ledgers;
    out.ledgers = {
      read: l.read + d.ledgers.read, torn_tail: l.torn_tail + d.ledgers.torn_tail, skipped: l.skipped + d.ledgers.skipped,
      outside_window: l.outside_window + d.ledgers.outside_window, no_ledger: l.no_ledger + d.ledgers.no_ledger,
      with_set_aside: l.with_set_aside + d.ledgers.with_set_aside,
      skipped_list: [...l.skipped_list, ...d.ledgers.skipped_list.map((s) => ({ ...s, session: `${box}/${s.session}` }))],
    };
    out.range = { first: earliest(out.range.first, d.range.first), last: latest(out.range.last, d.range.last) };
    for (const r of d.jobs_per_day) perDay.set(`${r.day}\u0000${r.outcome}`, (perDay.get(`${r.day}\u0000${r.outcome}`) ?? 0) + r.jobs);
    out.durations.push(...tag(box, d.durations));
    out.pass_rate.push(...tag(box, d.pass_rate));
    out.signatures.push(...tag(box, d.signatures));
    out.signatures_total += d.signatures_total;
    out.capability_gaps.push(...tag(box, d.capability_gaps));
    out.fixes.push(...tag(box, d.fixes));
    out.declined.push(...tag(box, d.declined));
    const line: BoxLine = {
      box, jobs: d.counts.sessions, by_outcome: d.counts.by_outcome, events: d.counts.events, failures: d.counts.failures,
      capability_gaps: d.counts.capability_gaps, ledgers_skipped: d.ledgers.skipped, last_event: d.range.last,
    };
    out.boxes!.push(line);
  }
  out.jobs_per_day = [...perDay].map(([k, jobs]) => {
    const [day, outcome] = k.split('\u0000') as [string, string];
    return { day, outcome, jobs };
  }).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.outcome < b.outcome ? -1 : 1));
  out.durations.sort((a, b) => b.p90_ms - a.p90_ms || (`${a.box} ${a.provider}` < `${b.box} ${b.provider}` ? -1 : 1));
  out.pass_rate.sort((a, b) => (a.period < b.period ? -1 : a.period > b.period ? 1 : `${a.box} ${a.provider} ${a.schema}` < `${b.box} ${b.provider} ${b.schema}` ? -1 : 1));
  // the fleet's top signatures: each box's top ones, the most seen first, as many as a box's page holds
  out.signatures = out.signatures.sort((a, b) => b.seen - a.seen || (`${a.box} ${a.kind} ${a.signature}` < `${b.box} ${b.kind} ${b.signature}` ? -1 : 1)).slice(0, TOP_SIGNATURES);
  out.capability_gaps.sort((a, b) => b.seen - a.seen || (`${a.box} ${a.capability}` < `${b.box} ${b.capability}` ? -1 : 1));
  out.fixes.sort((a, b) => b.on_facts + b.on_failed - (a.on_facts + a.on_failed) || (`${a.box} ${a.provider} ${a.fix}` < `${b.box} ${b.provider} ${b.fix}` ? -1 : 1));
  out.declined.sort((a, b) => (a.t > b.t ? -1 : a.t < b.t ? 1 : a.session < b.session ? -1 : 1));
  return out;
}
