/**
 * The trajectory cache's memory side (design §9.4): the plans that made a
 * goal-only session `answered`, and the keys a later goal is matched on.
 *
 * An entry is derived from a ledger like every other row (so `pico memory
 * rebuild` restores it): the session's last `plan_created` (its tool steps),
 * the goal's intent terms, and, per tool the plan uses, the digest of its
 * manifest, its fact schema and its reducer capability as the session's
 * composition document resolved them. An entry counts once its session
 * answered, and stops counting when a later session recorded `cache_dropped`
 * for its plan key. Keys are computed here for both sides — ingest (from the
 * composition beside the ledger) and lookup (from the current composition) —
 * so a changed tool or schema cannot hit an old entry. This module keys and
 * stores; it does not decide to use an entry (that is `agent/cache.ts`).
 */
import type Database from 'better-sqlite3';
import type { Composition } from '../ledger/composition.js';
import { canonicalJson, digestOf } from '../ledger/canonical.js';
import { terms } from './terms.js';

/** A plan step as the ledger writes it. */
export interface CachedStep {
  step: string;
  tool: string | null;
  args: Record<string, unknown>;
  capability: string;
  schema: string;
  from: string[];
}

export type ToolSide = Pick<Composition, 'tools' | 'schemas' | 'capabilities'>;

/** The goal's intent terms, order and repeats ignored: "Disk usage?" and "usage of the disks" meet. */
export function intentKey(goal: string): string {
  return [...new Set(terms(goal))].sort().join(' ');
}

/** tool name -> digest of its manifest, fact schema and reducer; null when a tool is not in the composition. */
export function toolDigests(c: ToolSide, names: readonly string[]): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const name of [...new Set(names)].sort()) {
    const tool = c.tools?.[name] as { fact_schema?: unknown; reducer?: unknown } | undefined;
    if (!tool) return null;
    const schema = typeof tool.fact_schema === 'string' ? (c.schemas?.[tool.fact_schema] ?? null) : null;
    const reducer = typeof tool.reducer === 'string' ? (c.capabilities?.[tool.reducer] ?? null) : null;
    out[name] = digestOf({ tool, schema, reducer });
  }
  return out;
}

/** The key of one entry: intent terms, tool digests and the steps themselves. */
export function planKey(intent: string, tools: Record<string, string>, steps: readonly CachedStep[]): string {
  return digestOf({ intent, tools, steps: steps.map((s) => ({ tool: s.tool, args: s.args, capability: s.capability, schema: s.schema })) });
}

/** The rows of a `plan_created` worth keeping: the tool steps of a goal-only plan; null when it has none. */
export function entryOf(goal: string, steps: readonly CachedStep[], c: ToolSide): { intent: string; tools: Record<string, string>; key: string; steps: CachedStep[] } | null {
  const data = steps.filter((s) => s.tool !== null);
  if (data.length === 0) return null;
  const tools = toolDigests(c, data.map((s) => s.tool!));
  if (!tools) return null;
  const intent = intentKey(goal);
  return { intent, tools, key: planKey(intent, tools, data), steps: data };
}

export interface Candidate {
  session: string;
  key: string;
  tools: Record<string, string>;
  steps: CachedStep[];
}

/** Answered, not dropped entries for an intent, newest first. */
export function candidates(db: Database.Database, intent: string, limit = 20): Candidate[] {
  const rows = db.prepare(`SELECT session, plan_key, tools, steps FROM trajectory t
    WHERE intent = ? AND answered_at IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM trajectory_drop d WHERE d.plan_key = t.plan_key AND d.t >= t.answered_at)
    ORDER BY answered_at DESC, session DESC LIMIT ?`).all(intent, limit) as { session: string; plan_key: string; tools: string; steps: string }[];
  return rows.map((r) => ({ session: r.session, key: r.plan_key, tools: JSON.parse(r.tools) as Record<string, string>, steps: JSON.parse(r.steps) as CachedStep[] }));
}

/** The first candidate whose tools digest the same under `current` (and so whose key is the same). */
export function matching(list: readonly Candidate[], current: ToolSide): Candidate | null {
  for (const c of list) {
    const now = toolDigests(current, Object.keys(c.tools));
    if (now && canonicalJson(now) === canonicalJson(c.tools)) return c;
  }
  return null;
}
