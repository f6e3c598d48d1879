/**
 * What the report shows, gathered from the ledgers of a root.
 *
 * The ledgers are the truth (design §2), so the report reads them, not the
 * memory index: it needs no write access, works on a root whose index was
 * never built, and cannot show a stale index. One ledger at a time is read,
 * folded (fold.ts) and dropped, so a few thousand sessions cost their reading
 * time and little memory. A ledger whose last write was before the window is
 * not opened at all. Reading goes through the ledger scanner (src/ledger/
 * scan.ts) in its loose mode and never moves or truncates anything: a torn
 * last line is left out (the intact prefix is read, as the writer would keep
 * it), and a ledger damaged before its end is skipped and named, so one bad
 * file never stops the report. Ledgers and result files are read through the
 * one safe path (src/base/safe-open.ts): a symlink, a FIFO or another user's
 * file in a session folder is skipped and named, never followed or opened
 * for a blocking read. This module returns data; charts.ts and
 * page.ts draw it.
 */
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { parseJsonQuiet, readPlanted, readPlantedText, rootRules, UnsafeFileError, type RootRules } from '../base/safe-open.js';
import { join } from 'node:path';
import { LEDGER_FILE } from '../ledger/ledger.js';
import { scanLedger } from '../ledger/scan.js';
import { isSessionFolderName, sessionsDirFor } from '../memory/paths.js';
import { Accumulator, fixKind, percentile, type Declined, type Event } from './fold.js';

const DAY_MS = 86_400_000;
/** Rows kept in the long tables: the page is for reading, `--json` for everything else. */
export const TOP_SIGNATURES = 15;
const MAX_SKIPPED_LISTED = 20;
/** A ledger bigger than this is skipped and named rather than read into memory. */
const LEDGER_MAX_BYTES = 512 * 1024 * 1024;
const RESULT_MAX_BYTES = 16 * 1024 * 1024;

/** Declined jobs listed on the page, newest first (--json lists them all). */
export const TOP_DECLINED = 30;

/**
 * A provider's name as people read it: a model's pinned identity `tiny@sha256:<64 hex>` becomes
 * `tiny@3fa9c01b…` (enough to tell two weights of one id apart); the page shows the whole on hover.
 */
export function shortProvider(id: string): string {
  return id.replace(/@sha256:([0-9a-f]{8})[0-9a-f]{56}$/, '@$1…');
}

export interface ReportData {
  report: 'report@1';
  root: string;
  generated_at: string;
  days: number;
  /** sessions that started at or after this time are counted */
  since: string;
  /** the first and last event time among the sessions read */
  range: { first: string | null; last: string | null };
  /** the pass-rate chart's unit of time: days for a window up to 31 days, else ISO weeks (their Monday) */
  period: 'day' | 'week';
  /** sessions: jobs counted (ledgers read, and jobs with a result.json but no ledger) */
  counts: { sessions: number; events: number; facts: number; failures: number; provider_calls: number; capability_gaps: number; by_outcome: Record<string, number> };
  ledgers: {
    read: number;
    /** read up to a torn last line (a write in progress or a crash mid-append) */
    torn_tail: number;
    /** damaged before their end: skipped */
    skipped: number;
    /** outside the window (by last write or by first event) */
    outside_window: number;
    /** session folders with no ledger yet (claimed, not started) */
    no_ledger: number;
    /** session folders that hold bytes set aside earlier (events.jsonl.torn-* / .damaged-*) */
    with_set_aside: number;
    skipped_list: { session: string; reason: string }[];
  };
  jobs_per_day: { day: string; outcome: string; jobs: number }[];
  durations: ({ provider: string; calls: number; failed_calls: number; p50_ms: number; p90_ms: number; max_ms: number } & OnBox)[];
  pass_rate: ({ period: string; provider: string; schema: string; ok: number; failed: number; pass_rate: number } & OnBox)[];
  signatures: ({ kind: string; signature: string; seen: number; sessions: number; remedy: string; remedies: Record<string, number>; untrusted: number; last_seen: string } & OnBox)[];
  signatures_total: number;
  capability_gaps: ({ capability: string; schema: string; seen: number; sessions: number; declined: number; filters: Record<string, number>; last_seen: string } & OnBox)[];
  fixes: ({ provider: string; kind: string; fix: string; on_facts: number; on_failed: number } & OnBox)[];
  /** every job that ended declined, newest first: its goal, why, the failure kinds on the way (not counted among the signatures) */
  declined: (Declined & OnBox)[];
  /** a fleet hub's report (fleet.ts): one line per box, and every row above names its box */
  boxes?: BoxLine[];
}

/** The box a row came from, in a fleet hub's report (absent on a box's own). */
export interface OnBox {
  box?: string;
}

/** One box's totals in a fleet hub's report. */
export interface BoxLine {
  box: string;
  jobs: number;
  by_outcome: Record<string, number>;
  events: number;
  failures: number;
  capability_gaps: number;
  ledgers_skipped: number;
  last_event: string | null;
}

export interface CollectOptions {
  root: string;
  /** the sessions folder to read, when not the root's own (a hub's copy of one box's, fleet.ts) */
  sessionsDir?: string;
  /** the window: sessions that started within this many days before `now` */
  days: number;
  now?: Date;
}

/** What result.json says of a session (e.g. a job cancelled in the queue, which has no ledger), or null. */
function resultOf(rules: RootRules, dir: string): { outcome: string; at: string | null } | null {
  try {
    const f = readPlantedText(rules, join(dir, 'result.json'), { maxBytes: RESULT_MAX_BYTES, what: 'result file' });
    const json = f === null ? null : parseJsonQuiet(f.text);
    if (json === null || !('value' in json) || json.value === null || typeof json.value !== 'object') return null;
    const doc = json.value as { outcome?: unknown; ended_at?: unknown; started_at?: unknown };
    if (typeof doc.outcome !== 'string' || !/^[a-z_]{1,32}$/.test(doc.outcome)) return null;
    const at = [doc.started_at, doc.ended_at].find((t): t is string => typeof t === 'string' && Number.isFinite(Date.parse(t))) ?? null;
    return { outcome: doc.outcome, at };
  } catch {
    return null;
  }
}

/** Gather the report's data from `<root>/sessions/`. */
export function collectReport(o: CollectOptions): ReportData {
  const now = o.now ?? new Date();
  const sinceMs = now.getTime() - o.days * DAY_MS;
  const since = new Date(sinceMs).toISOString();
  const period = o.days <= 31 ? 'day' : 'week';
  const acc = new Accumulator(period);
  const ledgers: ReportData['ledgers'] = { read: 0, torn_tail: 0, skipped: 0, outside_window: 0, no_ledger: 0, with_set_aside: 0, skipped_list: [] };
  const skip = (session: string, reason: string): void => {
    ledgers.skipped++;
    if (ledgers.skipped_list.length < MAX_SKIPPED_LISTED) ledgers.skipped_list.push({ session, reason });
  };
  const dir = o.sessionsDir ?? sessionsDirFor(o.root);
  const rules = rootRules(o.root);
  const names = existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory() && isSessionFolderName(d.name)).map((d) => d.name).sort() : [];
  for (const name of names) {
    const sdir = join(dir, name);
    const path = join(sdir, LEDGER_FILE);
    let bytes: Buffer;
    try {
      const st = lstatSync(path);
      if (st.isFile() && st.mtimeMs < sinceMs) {
        ledgers.outside_window++;
        continue;
      }
      // a ledger is read like any file a session could plant: no link followed, no FIFO opened
      const f = readPlanted(rules, path, { maxBytes: LEDGER_MAX_BYTES, what: 'ledger' });
      if (f === null) throw Object.assign(new Error('gone'), { code: 'ENOENT' });
      bytes = f.bytes;
    } catch (e) {
      if (e instanceof UnsafeFileError) skip(name, `not read: ${e.message}`);
      else if ((e as NodeJS.ErrnoException).code !== 'ENOENT') skip(name, `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      else {
        // no ledger: a job that ended before it started (cancelled in the queue) still counts, on its result's day
        const res = resultOf(rules, sdir);
        if (res === null || res.at === null) ledgers.no_ledger++;
        else if (Date.parse(res.at) < sinceMs) ledgers.outside_window++;
        else acc.addResultOnly(res.outcome, res.at);
      }
      continue;
    }
    const scan = scanLedger(bytes, name, { strict: false });
    if (scan.damage) {
      skip(name, `damaged at line ${scan.damage.line}: ${scan.damage.problem}; run \`pico check ${name}\``);
      continue;
    }
    const events = scan.events as unknown as Event[];
    if (events.length === 0) {
      ledgers.no_ledger++;
      continue;
    }
    const t0 = events[0]!.t;
    if (typeof t0 !== 'string' || !(Date.parse(t0) >= sinceMs)) {
      ledgers.outside_window++;
      continue;
    }
    ledgers.read++;
    if (scan.torn) ledgers.torn_tail++;
    if (readdirSync(sdir).some((f) => f.startsWith(`${LEDGER_FILE}.torn-`) || f.startsWith(`${LEDGER_FILE}.damaged-`))) ledgers.with_set_aside++;
    acc.add(name, events, resultOf(rules, sdir)?.outcome ?? null);
  }
  return build(o, now, since, period, acc, ledgers);
}

const byCount = <T extends { seen: number }>(a: T, b: T): number => b.seen - a.seen;
const entries = (m: Map<string, number>): Record<string, number> => Object.fromEntries([...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));

/** Turn the running totals into the report's rows, sorted for reading. */
function build(o: CollectOptions, now: Date, since: string, period: 'day' | 'week', acc: Accumulator, ledgers: ReportData['ledgers']): ReportData {
  const split = (k: string): string[] => k.split('\u0000');
  const signatures = [...acc.signatures.values()].sort((a, b) => byCount(a, b) || (a.kind + a.signature < b.kind + b.signature ? -1 : 1));
  return {
    report: 'report@1', root: o.root, generated_at: now.toISOString(), days: o.days, since,
    range: { first: acc.first, last: acc.last }, period,
    counts: {
      sessions: acc.jobs, events: acc.events, facts: acc.facts, failures: acc.failures, provider_calls: acc.calls,
      capability_gaps: [...acc.gaps.values()].reduce((n, g) => n + g.seen, 0), by_outcome: entries(acc.outcomes),
    },
    ledgers,
    jobs_per_day: [...acc.jobsByDay].map(([k, jobs]) => { const [day, outcome] = split(k); return { day: day!, outcome: outcome!, jobs }; })
      .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.outcome < b.outcome ? -1 : 1)),
    durations: [...acc.durations].map(([provider, d]) => {
      const s = d.all.sort((a, b) => a - b);
      return { provider, calls: s.length, failed_calls: d.failed, p50_ms: percentile(s, 50), p90_ms: percentile(s, 90), max_ms: s[s.length - 1]! };
    }).sort((a, b) => b.p90_ms - a.p90_ms || (a.provider < b.provider ? -1 : 1)),
    pass_rate: [...acc.passes].map(([k, [ok, failed]]) => {
      const [p, provider, schema] = split(k);
      return { period: p!, provider: provider!, schema: schema!, ok, failed, pass_rate: ok / (ok + failed) };
    }).sort((a, b) => (a.period < b.period ? -1 : a.period > b.period ? 1 : `${a.provider} ${a.schema}` < `${b.provider} ${b.schema}` ? -1 : 1)),
    signatures: signatures.slice(0, TOP_SIGNATURES).map((s) => {
      const remedies = entries(s.remedies);
      return { kind: s.kind, signature: s.signature, seen: s.seen, sessions: s.sessions.size, remedy: Object.keys(remedies)[0]!, remedies, untrusted: s.untrusted, last_seen: s.last };
    }),
    signatures_total: signatures.length,
    capability_gaps: [...acc.gaps.values()].sort(byCount).map((g) => ({
      capability: g.capability, schema: g.schema, seen: g.seen, sessions: g.sessions.size, declined: g.declined, filters: entries(g.filters), last_seen: g.last,
    })),
    fixes: [...acc.fixes].flatMap(([provider, f]) => [...new Set([...f.facts.keys(), ...f.failed.keys()])].map((fix) => ({
      provider, kind: fixKind(fix), fix, on_facts: f.facts.get(fix) ?? 0, on_failed: f.failed.get(fix) ?? 0,
    }))).sort((a, b) => b.on_facts + b.on_failed - (a.on_facts + a.on_failed) || (a.provider + a.fix < b.provider + b.fix ? -1 : 1)),
    declined: [...acc.declined].sort((a, b) => (a.t > b.t ? -1 : a.t < b.t ? 1 : a.session < b.session ? -1 : 1)),
  };
}
