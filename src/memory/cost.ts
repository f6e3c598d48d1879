/**
 * The cost model: what a provider costs on this machine, measured.
 *
 * Every provider call already writes its duration to the ledger, so the cost
 * is a query (`v_cost`: nearest-rank p50/p90 per provider and schema). Three
 * rules keep it honest: below five observations the estimate defers to the
 * manifest and says so (one slow call is not a trend); callers charge p90,
 * not the mean (the tail breaks budgets); a failed call consumed its time, so
 * it counts. It also gives the policy its per-job measurements (pass rate
 * from facts against ladder failures, cost from here) through a window:
 * only the calls of the provider's current identity (see
 * `provider-identity.ts`), the newest `last_n`, none older than
 * `max_age_days` — so a fixed provider starts fresh and a slow spell ages
 * out. `estimate()` without a window reads the whole history (for people:
 * `pico cost`). It never writes anything.
 */
import { PROVIDER_FAULT_KINDS } from './views.js';
import type Database from 'better-sqlite3';
import type { Measurement } from '../ledger/events.js';
import { readManifestCosts, type DeclaredCost } from './manifest-cost.js';
import { MEASUREMENT_WINDOW } from '../runtime/settings.js';

/** Which observations count: one identity's (or any, when null), the newest `lastN`, none before `since`. */
export interface Scope {
  digest: string | null;
  since: string | null;
  lastN: number;
}

/** What the policy snapshot reads: provider id -> identity digest, and the window as of `now`. */
export interface SnapshotOptions {
  digests?: Readonly<Record<string, string>>;
  now?: number;
  window?: { last_n: number; max_age_days: number };
}

/** How many calls are measured so far, in words: "not measured yet", never "only 0 measured calls". */
function measuredSoFar(n: number): string {
  return n === 0 ? 'not measured yet' : `only ${n} measured call${n === 1 ? '' : 's'}`;
}

/** Fewer measured calls than this and the manifest's declared cost is used instead. */
export const MIN_OBSERVATIONS = 5;

export interface Estimate {
  provider: string;
  schema: string | null;
  /** measured calls for this provider and schema */
  n: number;
  p50_ms: number | null;
  p90_ms: number | null;
  source: 'measured' | 'manifest' | 'none';
  manifest: DeclaredCost | null;
  /** the provider's kind as its manifest says (null: no manifest): `pico probe` measures gguf providers only */
  kind: string | null;
  note: string;
}

export interface StaleManifest {
  provider: string;
  schema: string | null;
  n: number;
  measured: DeclaredCost;
  manifest: DeclaredCost;
  /** measured / declared */
  ratio_p50: number;
  ratio_p90: number;
}

interface CostRow { provider: string; schema: string | null; n: number; p50_ms: number; p90_ms: number }

/** The manifest id of a provider identity: a model's calls are recorded as `tiny@sha256:…`, its manifest is `tiny`. */
const manifestId = (provider: string): string => provider.replace(/@.*$/, '');

export class CostModel {
  private readonly costs: Map<string, DeclaredCost | null>;
  private readonly kinds: Map<string, string>;
  readonly problems: string[];
  private readonly count: Database.Statement;
  private readonly rank: Database.Statement;
  private readonly scoped = new Map<string, Database.Statement>();

  /** `manifestsDir` is manifests/providers; it is read once, here. */
  constructor(private readonly db: Database.Database, manifestsDir: string) {
    const m = readManifestCosts(manifestsDir);
    this.costs = m.costs;
    this.kinds = m.kinds;
    this.problems = m.problems;
    // Per provider and schema, through the indexes (the views scan every row, which grows with
    // the history). A manifest id also matches its pinned identities: "tiny" covers "tiny@sha256:…".
    const who = `(provider = @p OR (provider > @p || '@' AND provider < @p || '@~')) AND schema IS @s`;
    this.count = db.prepare(`SELECT COUNT(*) AS n FROM provider_call WHERE ${who}`);
    this.rank = db.prepare(`SELECT duration_ms FROM provider_call WHERE ${who} ORDER BY duration_ms LIMIT 1 OFFSET @k`);
  }

  /** p50/p90 for a provider and schema; measured from five calls up, else the manifest's, else none. */
  estimate(provider: string, schema: string | null, scope?: Scope): Estimate {
    if (scope) {
      const ms = (this.window('call', scope).all(this.args(provider, schema, scope)) as { v: number }[]).map((r) => r.v).sort((a, b) => a - b);
      const at = (q: number) => ms[Math.max(0, Math.ceil((ms.length * q) / 100) - 1)]!;
      return this.fromRow(provider, schema, ms.length > 0 ? { provider, schema, n: ms.length, p50_ms: at(50), p90_ms: at(90) } : undefined);
    }
    const n = (this.count.get({ p: provider, s: schema }) as { n: number }).n;
    // nearest rank, as in v_cost: the smallest value with at least q% of the calls at or below it
    const at = (q: number) => (this.rank.get({ p: provider, s: schema, k: Math.max(0, Math.ceil((n * q) / 100) - 1) }) as { duration_ms: number }).duration_ms;
    const row: CostRow | undefined = n > 0 ? { provider, schema, n, p50_ms: at(50), p90_ms: at(90) } : undefined;
    return this.fromRow(provider, schema, row);
  }

  /** Apply the five-observation rule to a measured row (or its absence). */
  private fromRow(provider: string, schema: string | null, row: CostRow | undefined): Estimate {
    const n = row?.n ?? 0;
    const manifest = this.costs.get(manifestId(provider)) ?? null;
    const kind = this.kinds.get(manifestId(provider)) ?? null;
    if (row && n >= MIN_OBSERVATIONS) {
      return { provider, schema, n, p50_ms: row.p50_ms, p90_ms: row.p90_ms, source: 'measured', manifest, kind, note: `measured over ${n} calls` };
    }
    if (manifest) {
      return {
        provider, schema, n, p50_ms: manifest.p50_ms, p90_ms: manifest.p90_ms, source: 'manifest', manifest, kind,
        note: `${measuredSoFar(n)} (< ${MIN_OBSERVATIONS}); using the manifest's declared cost`,
      };
    }
    // advice that works when followed: only a gguf provider can be probed; any other is measured by running it
    const measure = kind === 'gguf' ? `measure it with \`pico probe ${provider}\`, or let it run ${MIN_OBSERVATIONS} times`
      : `it is measured once it has run ${MIN_OBSERVATIONS} times (or declare "cost": {"p50_ms", "p90_ms"} in its manifest)`;
    return {
      provider, schema, n, p50_ms: null, p90_ms: null, source: 'none', manifest: null, kind,
      note: `${measuredSoFar(n)} and no declared cost; ${measure}`,
    };
  }

  /** The provider with the lowest p90 (then p50, then id) for a schema; providers with no estimate lose. */
  cheapest(providers: readonly string[], schema: string | null): Estimate | null {
    const known = providers.map((p) => this.estimate(p, schema)).filter((e) => e.source !== 'none');
    known.sort((a, b) => a.p90_ms! - b.p90_ms! || a.p50_ms! - b.p50_ms! || (a.provider < b.provider ? -1 : 1));
    return known[0] ?? null;
  }

  /** Every measured provider and schema (plus manifest-only providers), by provider then schema. */
  all(provider?: string): Estimate[] {
    const rows = this.db.prepare('SELECT provider, schema, n, p50_ms, p90_ms FROM v_cost ORDER BY provider, schema').all() as CostRow[];
    // one provider's rows are those of its id and of every pinned identity of it, as in estimate()
    const out = rows.filter((r) => provider === undefined || r.provider === provider || manifestId(r.provider) === provider).map((r) => this.fromRow(r.provider, r.schema, r));
    const seen = new Set(rows.map((r) => manifestId(r.provider)));
    for (const id of [...this.costs.keys()].sort()) {
      if (!seen.has(id) && (provider === undefined || id === provider)) out.push(this.fromRow(id, null, undefined));
    }
    return out;
  }

  /** Measured pairs whose declared p50 or p90 is off by more than `factor` either way. */
  staleManifests(opts: { factor?: number } = {}): StaleManifest[] {
    const factor = opts.factor ?? 2;
    if (!(factor > 1)) throw new RangeError(`staleManifests: factor must be above 1, got ${factor}`);
    const rows = this.db.prepare('SELECT provider, schema, n, p50_ms, p90_ms FROM v_cost WHERE n >= ? ORDER BY provider, schema')
      .all(MIN_OBSERVATIONS) as CostRow[];
    const off = (r: number): boolean => !Number.isFinite(r) || r > factor || r < 1 / factor;
    const out: StaleManifest[] = [];
    for (const r of rows) {
      const m = this.costs.get(manifestId(r.provider));
      if (!m) continue;
      const ratio_p50 = r.p50_ms / m.p50_ms;
      const ratio_p90 = r.p90_ms / m.p90_ms;
      if (off(ratio_p50) || off(ratio_p90)) {
        out.push({ provider: r.provider, schema: r.schema, n: r.n, measured: { p50_ms: r.p50_ms, p90_ms: r.p90_ms }, manifest: m, ratio_p50, ratio_p90 });
      }
    }
    return out;
  }

  /** Pass rate over the window: committed facts against ladder failures, newest `lastN` of them. */
  passRate(provider: string, schema: string | null, scope: Scope): { pass_rate: number | null; n: number } {
    const oks = (this.window('health', scope).all(this.args(provider, schema, scope)) as { v: number }[]).map((r) => r.v);
    return { pass_rate: oks.length > 0 ? oks.filter((v) => v === 1).length / oks.length : null, n: oks.length };
  }

  /**
   * What the policy snapshots once per job: provider -> schema -> measurement, each saying
   * which identity and window it was read from, so the ledger records what the run saw.
   */
  measurementsFor(providerIds: readonly string[], schemaIds: readonly string[], opts: SnapshotOptions = {}): Record<string, Record<string, Measurement>> {
    const w = opts.window ?? MEASUREMENT_WINDOW;
    const since = new Date((opts.now ?? Date.now()) - w.max_age_days * 86_400_000).toISOString();
    const out: Record<string, Record<string, Measurement>> = {};
    for (const p of providerIds) {
      const bySchema: Record<string, Measurement> = {};
      const digest = opts.digests?.[p] ?? null;
      const scope: Scope = { digest, since, lastN: w.last_n };
      for (const s of schemaIds) {
        const h = this.passRate(p, s, scope);
        const e = this.estimate(p, s, scope);
        bySchema[s] = { pass_rate: h.pass_rate, n: h.n, p50_ms: e.p50_ms, p90_ms: e.p90_ms, source: e.source, identity: digest, window: { last_n: w.last_n, since } };
      }
      out[p] = bySchema;
    }
    return out;
  }

  /** Named parameters of a windowed query. */
  private args(provider: string, schema: string | null, scope: Scope): Record<string, unknown> {
    return { p: provider, s: schema, d: scope.digest, since: scope.since, n: scope.lastN };
  }

  /** The newest observations in a scope, as `v` (a duration, or 1/0 for passed/failed), prepared once per shape. */
  private window(what: 'call' | 'health', scope: Scope): Database.Statement {
    const key = `${what}:${scope.digest !== null}:${scope.since !== null}`;
    let st = this.scoped.get(key);
    if (st) return st;
    // with an identity the digest alone names the provider (the manifest it hashes holds the id)
    const who = (time: string) => [
      scope.digest !== null ? 'digest = @d' : `(provider = @p OR (provider > @p || '@' AND provider < @p || '@~'))`,
      'schema IS @s', ...(scope.since !== null ? [`${time} >= @since`] : []),
    ].join(' AND ');
    const faults = PROVIDER_FAULT_KINDS.map((k) => `'${k}'`).join(', ');
    const sql = what === 'call'
      ? `SELECT duration_ms AS v FROM provider_call WHERE ${who('t')} ORDER BY t DESC, seq DESC LIMIT @n`
      : `SELECT v FROM (SELECT observed_at AS at, 1 AS v FROM fact WHERE ${who('observed_at')}
           UNION ALL SELECT t AS at, 0 AS v FROM failure WHERE ${who('t')} AND kind IN (${faults}))
         ORDER BY at DESC LIMIT @n`;
    st = this.db.prepare(sql);
    this.scoped.set(key, st);
    return st;
  }

  /** Measurements with no database at all: declared costs only, no pass rates. */
  static declaredOnly(manifestsDir: string, providerIds: readonly string[], schemaIds: readonly string[]): Record<string, Record<string, Measurement>> {
    const { costs } = readManifestCosts(manifestsDir);
    const out: Record<string, Record<string, Measurement>> = {};
    for (const p of providerIds) {
      const c = costs.get(p) ?? null;
      const m: Measurement = { pass_rate: null, n: 0, p50_ms: c?.p50_ms ?? null, p90_ms: c?.p90_ms ?? null, source: c ? 'manifest' : 'none' };
      out[p] = Object.fromEntries(schemaIds.map((s) => [s, { ...m }]));
    }
    return out;
  }
}
