/**
 * The retrieval planner (retrieval-planner.ts) wired to a part of a goal
 * and to the registry: the tools read into what they cover (their words
 * through the lexicon, their arguments, the lists their facts hold), the
 * part's subject read into concepts, and the calls it gives — for a part no
 * playbook serves, and for a selection whose playbook plan holds no read
 * that lists the kind of thing asked for. Also the one rule every call of a
 * part obeys: the window the part names is the window it reads.
 *
 * Deterministic: the same part, registry and lexicon give the same calls.
 */
import type { Registry } from '../registry/registry.js';
import type { ToolManifest } from '../registry/manifest.js';
import { stem } from '../memory/terms.js';
import type { GoalReader } from './goal/reader.js';
import type { GoalPart } from './goal/index.js';
import { read } from './goal/normalise.js';
import type { RankedTool } from './retrieval.js';
import { holds, planFromTools, type Concept, type CoverTool, type RetrievalCall } from './retrieval-planner.js';

const coverCache = new WeakMap<Registry, { key: string; tools: Map<string, CoverTool> }>();

/** The read-only tools as the retrieval planner reads them: their words (through the lexicon), arguments and fact lists. */
function coverTools(registry: Registry, reader: GoalReader, plannable: readonly ToolManifest[]): Map<string, CoverTool> {
  const hit = coverCache.get(registry);
  if (hit?.key === reader.key) return hit.tools;
  const byReader = new Map<string, CoverTool>();
  for (const t of plannable) {
    const props = (t.input_schema.properties ?? {}) as Record<string, { description?: string }>;
    const fact = t.fact_schema && registry.schemas.has(t.fact_schema) ? registry.schema(t.fact_schema).json : {};
    const factProps = (fact.properties ?? {}) as Record<string, { type?: unknown }>;
    const text = [t.name, t.description, t.when ?? '', ...Object.keys(props), ...Object.values(props).map((p) => p.description ?? ''), ...Object.keys(factProps)].join(' ; ').replace(/_/g, ' ');
    const words = new Set([...reader.analyse(text), ...read(text, reader.ctx.lexicon).words.map(stem)]);
    const lists = Object.entries(factProps).filter(([, v]) => v.type === 'array' || (Array.isArray(v.type) && v.type.includes('array'))).map(([k]) => k);
    byReader.set(t.name, { name: t.name, words, input_schema: t.input_schema, lists });
  }
  coverCache.set(registry, { key: reader.key, tools: byReader });
  return byReader;
}

/**
 * The concepts of a part's subject (retrieval-planner.ts): each lexicon group it touches (met by
 * the group's word), and each other word the tools or the lexicon know (met by its stem).
 */
function conceptsOf(part: GoalPart, reader: GoalReader): Concept[] {
  const lex = reader.ctx.lexicon;
  const r = part.subjectReading;
  // a group's concept is named by the part's own word for it ("stat", not the group's "running")
  const own = (g: string) => r.words.find((w) => read(w, lex).groups.includes(g)) ?? g;
  const out: Concept[] = r.groups.map((g) => ({ word: own(g), any: [stem(g)] }));
  const inPhrase = (w: string) => [...lex.means.entries()].some(([k, head]) => k.includes(' ') && r.groups.includes(head) && k.split(' ').includes(w));
  for (const w of new Set(r.words)) {
    // a size or a count ("1gb", "3") is an entity or a filter, not a word of the subject
    if (r.unknown.includes(w) || !/[a-z]/.test(w) || /\d/.test(w) || lex.stop.has(w)) continue;
    const own = read(w, lex);
    if (own.terms.length === 0 || own.groups.length > 0 || inPhrase(w)) continue;
    out.push({ word: w, any: own.terms });
  }
  return out;
}

/** What the retrieval planner is handed besides the part: the registry, the reader, the plannable tools, and what a replan must not propose again. */
export interface RetrievalScope {
  registry: Registry;
  reader: GoalReader;
  plannable: readonly ToolManifest[];
  /** tools to avoid (a replan's) */
  avoid: readonly string[];
  /** whether a call, with the part's window, already ran (a replan proposes only what has not) */
  done: (tool: string, args: Record<string, unknown>) => boolean;
}

/** The retrieval planner's calls for a part (empty when no tool covers it). */
export function retrievalCalls(scope: RetrievalScope, part: GoalPart, ranked: readonly RankedTool[]): RetrievalCall[] {
  const { registry, reader, avoid } = scope;
  // a tool covers a subject only when every word of it is known: "what gpio pins are in use" is not about memory in use
  if (part.action || part.subjectReading.unknown.length > 0) return [];
  const e = part.entities;
  return planFromTools({
    concepts: conceptsOf(part, reader),
    entities: { unit: e.unit, path: e.path, since: e.window?.since ?? null, until: e.window?.until ?? null, boot: e.window?.boot ?? null, priority: e.priority, sort: e.sort },
    ...(part.ask.noun ? { noun: part.ask.noun } : {}),
    ranked: ranked.filter((r) => !avoid.includes(r.name)),
    tools: new Map([...coverTools(registry, reader, scope.plannable)].filter(([name]) => !avoid.includes(name))),
  }).filter((c) => !scope.done(c.name, withWindow(c.arguments, registry.tools.get(c.name)?.input_schema, e.window)));
}

/**
 * A selection needs facts that can hold its answer: when a part asks for a list, a count or a
 * membership of a kind of thing ("is python3 in the process list") and no tool planned for it
 * lists that kind, the retrieved tool that does (with the part's arguments) is read too.
 */
export function selectionCalls(scope: RetrievalScope, part: GoalPart, planned: readonly string[], ranked: readonly RankedTool[]): { name: string; arguments: Record<string, unknown> }[] {
  const noun = part.ask.noun;
  if (!noun || part.ask.kind === 'state' || part.ask.kind === 'why') return [];
  const tools = coverTools(scope.registry, scope.reader, scope.plannable);
  const lists = (name: string) => { const t = tools.get(name); return t ? holds(t, noun) : false; };
  if (planned.some(lists)) return [];
  const extra = retrievalCalls(scope, part, ranked.filter((r) => lists(r.name))).filter((c) => lists(c.name));
  return extra.slice(0, 1).map((c) => ({ name: c.name, arguments: c.arguments }));
}

/** A call's window arguments made the part's window (a playbook's fixed "this boot" gives way to the part's "the boot before"). */
export function withWindow(args: Record<string, unknown>, schema: Record<string, unknown> | undefined, w: GoalPart['entities']['window']): Record<string, unknown> {
  const props = (schema?.properties ?? {}) as Record<string, unknown>;
  if (!w || !('since' in props || 'boot' in props)) return args;
  const out = { ...args };
  delete out.since; delete out.until; delete out.boot;
  if (w.boot !== null && 'boot' in props) out.boot = w.boot;
  if (w.since !== null && 'since' in props) out.since = w.since;
  if (w.until && 'until' in props) out.until = w.until;
  return out;
}
