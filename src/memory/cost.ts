/**
 * The cost model: what a provider costs on this machine, measured.
 *
 * Every provider call already writes its duration to the ledger, so the cost
 * is a query (`v_cost`: nearest-rank p50/p90 per provider and schema). Three
 * rules keep it honest: below five observations the estimate defers to the
 * manifest and says so (one slow call is not a trend); callers charge p90,
 * not the mean (the tail breaks budgets); a failed call consumed its time, so
 * it counts. It also gives the policy its per-job measurements (pass rate
 * from `v_provider_health`, cost from here). It never writes anything.
 */
import { PROVIDER_FAULT_KINDS } from './views.js';
import type Database from 'better-sqlite3';
import type { Measurement } from '../ledger/events.js';
import { readManifestCosts, type DeclaredCost } from './manifest-cost.js';

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

export class CostModel {
  private readonly costs: Map<string, DeclaredCost | null>;
  readonly problems: string[];
  private readonly count: Database.Statement;
  private readonly rank: Database.Statement;
  private readonly health: Database.Statement;

  /** `manifestsDir` is manifests/providers; it is read once, here. */
  constructor(private readonly db: Database.Database, manifestsDir: string) {
    const m = readManifestCosts(manifestsDir);
    this.costs = m.costs;
    this.problems = m.problems;
    // Per provider and schema, through the indexes (the views scan every row, which grows with
    // the history). A manifest id also matches its pinned identities: "tiny" covers "tiny@sha256:…".
    const who = `(provider = @p OR (provider > @p || '@' AND provider < @p || '@~')) AND schema IS @s`;
    this.count = db.prepare(`SELECT COUNT(*) AS n FROM provider_call WHERE ${who}`);
    this.rank = db.prepare(`SELECT duration_ms FROM provider_call WHERE ${who} ORDER BY duration_ms LIMIT 1 OFFSET @k`);
    this.health = db.prepare(`SELECT (SELECT COUNT(*) FROM fact WHERE ${who}) AS ok,
      (SELECT COUNT(*) FROM failure WHERE ${who} AND kind IN (${PROVIDER_FAULT_KINDS.map((k) => `'${k}'`).join(', ')})) AS failed`);
  }

  /** p50/p90 for a provider and schema; measured from five calls up, else the manifest's, else none. */
  estimate(provider: string, schema: string | null): Estimate {
    const n = (this.count.get({ p: provider, s: schema }) as { n: number }).n;
    // nearest rank, as in v_cost: the smallest value with at least q% of the calls at or below it
    const at = (q: number) => (this.rank.get({ p: provider, s: schema, k: Math.max(0, Math.ceil((n * q) / 100) - 1) }) as { duration_ms: number }).duration_ms;
    const row: CostRow | undefined = n > 0 ? { provider, schema, n, p50_ms: at(50), p90_ms: at(90) } : undefined;
    return this.fromRow(provider, schema, row);
  }

  /** Apply the five-observation rule to a measured row (or its absence). */
  private fromRow(provider: string, schema: string | null, row: CostRow | undefined): Estimate {
    const n = row?.n ?? 0;
    const manifest = this.costs.get(provider) ?? null;
    if (row && n >= MIN_OBSERVATIONS) {
      return { provider, schema, n, p50_ms: row.p50_ms, p90_ms: row.p90_ms, source: 'measured', manifest, note: `measured over ${n} calls` };
    }
    if (manifest) {
      return {
        provider, schema, n, p50_ms: manifest.p50_ms, p90_ms: manifest.p90_ms, source: 'manifest', manifest,
        note: `only ${n} measured call${n === 1 ? '' : 's'} (< ${MIN_OBSERVATIONS}); using the manifest's declared cost`,
      };
    }
    return {
      provider, schema, n, p50_ms: null, p90_ms: null, source: 'none', manifest: null,
      note: `only ${n} measured call${n === 1 ? '' : 's'} and no declared cost; run \`pico probe\` or let it run ${MIN_OBSERVATIONS} times`,
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
    const out = rows.filter((r) => provider === undefined || r.provider === provider).map((r) => this.fromRow(r.provider, r.schema, r));
    const seen = new Set(rows.map((r) => r.provider));
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
      const m = this.costs.get(r.provider);
      if (!m) continue;
      const ratio_p50 = r.p50_ms / m.p50_ms;
      const ratio_p90 = r.p90_ms / m.p90_ms;
      if (off(ratio_p50) || off(ratio_p90)) {
        out.push({ provider: r.provider, schema: r.schema, n: r.n, measured: { p50_ms: r.p50_ms, p90_ms: r.p90_ms }, manifest: m, ratio_p50, ratio_p90 });
      }
    }
    return out;
  }

  /** What the policy snapshots once per job: provider -> schema -> measurement. */
  measurementsFor(providerIds: readonly string[], schemaIds: readonly string[]): Record<string, Record<string, Measurement>> {
    const out: Record<string, Record<string, Measurement>> = {};
    for (const p of providerIds) {
      const bySchema: Record<string, Measurement> = {};
      for (const s of schemaIds) {
        const h = this.health.get({ p, s }) as { ok: number; failed: number };
        const n = h.ok + h.failed;
        const e = this.estimate(p, s);
        bySchema[s] = { pass_rate: n > 0 ? h.ok / n : null, n, p50_ms: e.p50_ms, p90_ms: e.p90_ms, source: e.source };
      }
      out[p] = bySchema;
    }
    return out;
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
