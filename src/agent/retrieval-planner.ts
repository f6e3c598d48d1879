/**
 * The deterministic planner for a part no playbook serves (issue 35): from
 * the tools retrieval ranked for the part, and those that take a thing the
 * part names (a path, a unit, a time window), the ones whose own words and
 * schemas cover what the part asks about, called with the arguments the
 * part's entities give — at most three. Most boxes have no model planner;
 * without this, a question a shipped tool's description covers ("stat
 * /etc/passwd", "journalctl -u mosquitto --since today", "iface addrs")
 * would be declined.
 *
 * What "covers" means: the part's subject is a few concepts — each word it
 * asks about (a lexicon group counts as one concept, met by any of its
 * words) and each entity it names. A tool covers a word when its name,
 * description, "when" line, argument names or fact schema hold it (through
 * the lexicon), and an entity when it takes that argument. Words nothing
 * here knows are not concepts (the goal reader declines a part whose
 * subject is such a word before this runs). The tools kept cover the most
 * concepts — at least one word of the subject, or the entity when the part
 * names nothing else — and, among equals, those retrieval ranked at least
 * half as high as the best; a selection's noun ("which processes") prefers
 * tools whose facts list that kind of thing. A tool whose required
 * arguments the part cannot fill, or whose arguments its input schema
 * refuses, is never planned.
 *
 * Pure: the same part and tools give the same calls, so a replay plans the
 * same; planning.ts records the plan as `source: "retrieval"`.
 */
import { checkValue, compileSchema } from '../ladder/schemas.js';
import type { SchemaHandle } from '../ladder/types.js';
import type { RankedTool } from './retrieval.js';

/** A tool as this planner reads it. */
export interface CoverTool {
  name: string;
  /** the stems of its name, description, "when" line, argument names and fact schema, read through the lexicon */
  words: ReadonlySet<string>;
  input_schema: Readonly<Record<string, unknown>>;
  /** the names of the lists its facts hold ("processes", "units", "interfaces") */
  lists: readonly string[];
}

/** What the part names, in the tools' argument forms (null: not named). */
export interface PartEntities {
  unit: string | null;
  path: string | null;
  since: string | null;
  until: string | null;
  boot: number | null;
  priority: string | null;
  sort: string | null;
}

/** One concept of the subject: met when a tool's words hold any of `any`. */
export interface Concept {
  word: string;
  any: readonly string[];
}

export interface RetrievalInput {
  concepts: readonly Concept[];
  entities: PartEntities;
  /** the kind of thing a selection asks for (seam §1 noun), if any */
  noun?: string | undefined;
  /** retrieval's ranking for the part, best first */
  ranked: readonly RankedTool[];
  /** every tool the planner may use (read-only, reducible), by name */
  tools: ReadonlyMap<string, CoverTool>;
  max?: number;
}

export interface RetrievalCall {
  name: string;
  arguments: Record<string, unknown>;
  /** the subject's words this tool covers */
  covers: string[];
}

const handles = new WeakMap<object, SchemaHandle>();
function schemaOf(t: CoverTool): SchemaHandle {
  let h = handles.get(t.input_schema);
  if (!h) { h = compileSchema(t.input_schema as object, `retrieval:${t.name}/input`); handles.set(t.input_schema, h); }
  return h;
}

/** The argument each entity fills, by the property name the tools use for it. */
const ENTITY_ARGS: readonly (keyof PartEntities)[] = ['path', 'unit', 'since', 'until', 'boot', 'priority', 'sort'];
/** The entities a part names as things of its own (a priority or sort order only qualifies a read). */
const NAMED: Record<string, readonly string[]> = { path: ['path'], unit: ['unit'], window: ['since', 'until', 'boot'] };

/** A tool's arguments from the part's entities, or null when a required one stays empty or the schema refuses them. */
function argsFor(t: CoverTool, e: PartEntities): Record<string, unknown> | null {
  const props = (t.input_schema.properties ?? {}) as Record<string, unknown>;
  const required = (t.input_schema.required ?? []) as string[];
  const args: Record<string, unknown> = {};
  for (const k of ENTITY_ARGS) if (k in props && e[k] !== null) args[k] = e[k];
  if (required.some((r) => !(r in args))) return null;
  if (checkValue(schemaOf(t), args) === null) return args;
  // an optional argument the schema refuses is left out (the tool reads its default); a required one rules the tool out
  for (const k of Object.keys(args)) {
    if (required.includes(k)) continue;
    const without = { ...args };
    delete without[k];
    if (checkValue(schemaOf(t), without) === null) return without;
  }
  return null;
}

/** Whether a tool's facts hold a list of `noun`s ("process" → processes). */
export const holds = (t: CoverTool, noun: string) => t.lists.some((l) => l === noun || l === `${noun}s` || l === `${noun}es` || l.replace(/ies$/, 'y') === noun);

/** The calls for a part no playbook serves, best first; empty when no tool covers it. */
export function planFromTools(input: RetrievalInput): RetrievalCall[] {
  const { concepts, entities: e } = input;
  const named = Object.entries(NAMED).filter(([k, args]) => (k === 'window' ? args.some((a) => e[a as keyof PartEntities] !== null) : e[k as keyof PartEntities] !== null)).map(([k]) => k);
  const order = new Map(input.ranked.map((r, i) => [r.name, i]));
  const score = new Map(input.ranked.map((r) => [r.name, r.score]));
  // the ranked tools first, then any tool that takes a thing the part names
  const names = [...input.ranked.map((r) => r.name), ...[...input.tools.keys()].filter((n) => !order.has(n)).sort()];
  type Scored = { name: string; args: Record<string, unknown>; words: string[]; things: number; score: number };
  const found: Scored[] = [];
  for (const name of names) {
    const t = input.tools.get(name);
    if (!t) continue;
    const props = (t.input_schema.properties ?? {}) as Record<string, unknown>;
    const takes = named.filter((k) => NAMED[k]!.some((a) => a in props));
    const words = concepts.filter((c) => c.any.some((x) => t.words.has(x))).map((c) => c.word);
    if (!order.has(name) && takes.length === 0) continue;
    if (words.length === 0 && (concepts.length > 0 || takes.length === 0)) {
      // a part that names nothing but a thing ("what happened at 10:30") is served by the tool that reads it
      if (!(takes.length > 0 && concepts.length === 0)) continue;
    }
    const args = argsFor(t, e);
    if (!args) continue;
    found.push({ name, args, words, things: takes.length, score: score.get(name) ?? 0 });
  }
  if (found.length === 0) return [];
  const cover = (s: Scored) => s.words.length + s.things;
  const best = Math.max(...found.map(cover));
  let kept = found.filter((s) => cover(s) === best);
  if (input.noun && kept.some((s) => holds(input.tools.get(s.name)!, input.noun!))) kept = kept.filter((s) => holds(input.tools.get(s.name)!, input.noun!));
  const top = Math.max(...kept.map((s) => s.score));
  if (top > 0) kept = kept.filter((s) => s.score >= top / 2);
  return kept.slice(0, input.max ?? 3).map((s) => ({ name: s.name, arguments: s.args, covers: s.words }));
}
