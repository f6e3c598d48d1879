/**
 * Retrieval: which few tools a goal is about, by BM25 over the tools' own words.
 *
 * A small model picks the wrong tool when it is shown many (design §9), so the
 * planner prompt and its grammar cover only the top k tools this module
 * returns. Each tool is one document made of its name (split into words,
 * weight 2), its `when` line (weight 1.5) and its description (weight 1); the
 * goal is the query. Scores are Okapi BM25 (k1 1.2, b 0.75, idf
 * ln(1 + (N − n + 0.5)/(n + 0.5))). The ranking is deterministic: ties are
 * broken by name, and a tool that shares no term with the goal scores 0 and
 * is not returned — a goal that names nothing a tool is about retrieves
 * nothing, and the caller says so instead of guessing.
 *
 * The index is built once per tool set and cached by a digest of the set's
 * words, so ranking is a few array additions. It does not read manifests,
 * know about trust, or build grammars; it only ranks.
 */
import { createHash } from 'node:crypto';
import { AGENT_DEFAULTS } from './settings.js';
import { terms } from '../memory/terms.js';
import type { AgentTool } from './types.js';

export interface RankedTool {
  name: string;
  score: number;
}

const K1 = 1.2;
const B = 0.75;
/** How much one occurrence of a term in each field counts. */
export const FIELD_WEIGHTS = { name: 2, when: 1.5, description: 1 } as const;

interface Postings {
  docs: Int32Array;
  /** the BM25 weight of the term in each doc (idf included), precomputed at build */
  weights: Float64Array;
}

/** An immutable BM25 index over one tool set. */
export class ToolIndex {
  private constructor(
    readonly digest: string,
    readonly names: readonly string[],
    private readonly postings: ReadonlyMap<string, Postings>,
  ) {}

  /**
   * Build the index; a duplicate tool name is the caller's bug and throws. `analyse` turns a
   * field's text into terms (default: terms.ts; the goal reader passes one that reads through the
   * lexicon, so tools and goals meet on the same words).
   */
  static build(tools: readonly AgentTool[], digest = toolSetDigest(tools), analyse: (text: string) => string[] = terms): ToolIndex {
    const names = tools.map((t) => t.name);
    const seen = new Set<string>();
    for (const n of names) {
      if (seen.has(n)) throw new Error(`retrieval: two tools are named "${n}"; tool names must be unique in one tool set`);
      seen.add(n);
    }
    const tfs: Map<string, number>[] = [];
    const lens = new Float64Array(tools.length);
    tools.forEach((t, i) => {
      const tf = new Map<string, number>();
      const add = (text: string | undefined, w: number) => {
        for (const term of analyse(text ?? '')) {
          tf.set(term, (tf.get(term) ?? 0) + w);
          lens[i] = lens[i]! + w;
        }
      };
      add(t.name, FIELD_WEIGHTS.name);
      add(t.when, FIELD_WEIGHTS.when);
      add(t.description, FIELD_WEIGHTS.description);
      tfs.push(tf);
    });
    const n = tools.length;
    const avg = n === 0 ? 1 : lens.reduce((a, b) => a + b, 0) / n || 1;
    const byTerm = new Map<string, { docs: number[]; tf: number[] }>();
    tfs.forEach((tf, doc) => {
      for (const [term, f] of tf) {
        const p = byTerm.get(term) ?? { docs: [], tf: [] };
        p.docs.push(doc);
        p.tf.push(f);
        byTerm.set(term, p);
      }
    });
    const postings = new Map<string, Postings>();
    for (const [term, p] of byTerm) {
      const df = p.docs.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const weights = new Float64Array(df);
      p.docs.forEach((doc, j) => {
        const f = p.tf[j]!;
        weights[j] = (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * lens[doc]!) / avg));
      });
      postings.set(term, { docs: Int32Array.from(p.docs), weights });
    }
    return new ToolIndex(digest, names, postings);
  }

  /** The top k tools for a goal, best first, ties by name; only tools with a score above 0. */
  rank(goal: string, k: number = AGENT_DEFAULTS.top_k): RankedTool[] {
    return this.rankTerms(terms(goal), k);
  }

  /** The top k tools for a query already read into terms (each counted once). */
  rankTerms(query: readonly string[], k: number = AGENT_DEFAULTS.top_k): RankedTool[] {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`retrieval: top_k must be a whole number of at least 1, got ${String(k)}`);
    const scores = new Float64Array(this.names.length);
    for (const term of new Set(query)) {
      const p = this.postings.get(term);
      if (!p) continue;
      for (let j = 0; j < p.docs.length; j++) {
        const d = p.docs[j]!;
        scores[d] = scores[d]! + p.weights[j]!;
      }
    }
    const hits: RankedTool[] = [];
    scores.forEach((score, i) => {
      if (score > 0) hits.push({ name: this.names[i]!, score });
    });
    hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return hits.slice(0, k);
  }
}

/** A digest of exactly the words retrieval reads, in name order: equal digests rank equally. */
export function toolSetDigest(tools: readonly AgentTool[]): string {
  const docs = tools.map((t) => `${t.name}\u0000${t.when ?? ''}\u0000${t.when === undefined ? 0 : 1}\u0000${t.description}`);
  docs.sort();
  return createHash('sha256').update(docs.join('\u0001')).digest('hex');
}

// A few recent indexes, keyed by digest; the runtime usually ranks against one tool set.
const CACHE_SIZE = 8;
const cache = new Map<string, ToolIndex>();

/**
 * The index for a tool set, built on first use and kept while the set is among the last few used.
 * With an analyser, `analyserKey` must name it (e.g. the lexicon's digest): it is part of the key.
 */
export function indexFor(tools: readonly AgentTool[], analyse?: { key: string; fn: (text: string) => string[] }): ToolIndex {
  const digest = analyse ? `${toolSetDigest(tools)}:${analyse.key}` : toolSetDigest(tools);
  let index = cache.get(digest);
  if (index) {
    cache.delete(digest);
  } else {
    index = ToolIndex.build(tools, digest, analyse?.fn);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  cache.set(digest, index);
  return index;
}

/** The top k tools for a goal (k: the `top_k` setting), best first; empty when no tool shares a term with the goal. */
export function rankTools(goal: string, tools: readonly AgentTool[], k: number = AGENT_DEFAULTS.top_k): RankedTool[] {
  return indexFor(tools).rank(goal, k);
}
