/**
 * A goal read against one set of tools and playbooks: the bridge between
 * the understood goal (index.ts) and planning. It ranks tools for a part
 * (BM25 over the lexicon's reading of each tool, so "laggy" meets
 * `load_top` through "slow"), matches playbooks to a part (a playbook
 * qualifies when its best intent phrase is at least half in the part, and
 * qualifying playbooks are ordered by BM25 over their intent phrases and
 * description), finds the tool that makes a change asked for (its effect is
 * destructive, its words name the kind of change and the object), and
 * offers what can be checked instead when nothing can do what was asked.
 *
 * Built once per tool and playbook set and lexicon (cached by a digest of
 * the three), then pure.
 */
import { createHash } from 'node:crypto';
import { stem } from '../../memory/terms.js';
import { indexFor, type RankedTool } from '../retrieval.js';
import type { AgentTool } from '../types.js';
import { goalContext, understand, type GoalContext, type GoalPart, type Understood } from './index.js';
import { phraseKey, type Lexicon } from './lexicon.js';
import { read, STOP, tokens } from './normalise.js';

/** A tool as the reader sees it: its words and its effect. */
export interface ReaderTool extends AgentTool {
  readonly effect: 'read_only' | 'destructive';
}

/** A playbook as the reader sees it. */
export interface ReaderPlaybook {
  readonly id: string;
  readonly description: string;
  readonly intent: readonly string[];
  readonly steps: readonly { tool: string; args?: Readonly<Record<string, unknown>> }[];
  readonly slots?: Readonly<Record<string, { extractor: string; required?: boolean }>>;
}

export interface PartMatch {
  id: string;
  score: number;
  /** the share of the best intent phrase the part holds (0.5 … 1) */
  coverage: number;
  /** the words of the part's subject that met the best intent phrase */
  words: string[];
}

export interface GoalReader {
  ctx: GoalContext;
  /** a digest of the lexicon, tools and playbooks the reader was built from */
  key: string;
  /** `now`: when the goal was asked (for windows that name a day); the current time when absent */
  understand(goal: string, now?: Date): Understood;
  /** the terms of a tool's or playbook's own text, read through the lexicon */
  analyse(text: string): string[];
  /** the top k of `tools` for a part (only those sharing a term with it) */
  rank(part: GoalPart, tools: readonly AgentTool[], k: number): RankedTool[];
  /** the playbooks that fit a part's subject (never a word outside it), best first */
  match(part: GoalPart, playbooks: readonly ReaderPlaybook[]): PartMatch[];
  /** the destructive tool that makes the change a part asks for, or null */
  actTool(part: GoalPart): ReaderTool | null;
  /**
   * A request a destructive tool here would carry out for the kind of change a part asks for, when
   * the part's object is not one it acts on ("delete the logs in /var/log" → "prune the log
   * archive"): its first verb and the object its "when" line names; null when no tool makes that
   * kind of change.
   */
  workingRequest(part: GoalPart): { tool: string; request: string } | null;
  /** up to n things that can be checked instead, as the tools' own "when" phrases */
  offers(part: GoalPart, n?: number): string[];
  /** the lexicon groups of a part that no tool or playbook speaks of (who is logged in: login) */
  uncovered(part: GoalPart): string[];
  /**
   * The words naming the thing a part asks about ("is my X …", "X says …") when no tool or playbook
   * speaks of any of them — words the lexicon knows only as part of a request ("pip" of "pip
   * install"); empty when some tool does, or the part names no such thing.
   */
  unspoken(part: GoalPart): string[];
  /**
   * What a part measures that no read-only tool speaks of together with the thing measured ("how
   * much space do the logs take": no tool about size or disk space is also about logs; "is my sd
   * card healthy": no tool about disks is also about health), in words ("the size of journal
   * logs", "that of the sd card"), or null when some tool does or the part measures nothing. The
   * space a folder takes needs a tool about disk space and folders (stat's size of a folder is its
   * entry, not its contents); any other part naming a path or a unit is about that entity.
   */
  unmeasured(part: GoalPart): string | null;
}

const cache = new Map<string, GoalReader>();

/** The reader for a lexicon, tool set and playbook set (cached while among the last few used). */
export function goalReader(lexicon: Lexicon, tools: readonly ReaderTool[], playbooks: readonly ReaderPlaybook[]): GoalReader {
  const key = createHash('sha256').update(JSON.stringify([
    lexicon.documents, tools.map((t) => [t.name, t.description, t.when ?? '', t.effect]), playbooks.map((p) => [p.id, p.description, p.intent, p.steps.map((s) => s.tool)]),
  ])).digest('hex').slice(0, 16);
  const hit = cache.get(key);
  if (hit) return hit;
  const texts = [...tools.flatMap((t) => [t.name, t.description, t.when ?? '']), ...playbooks.flatMap((p) => [...p.intent, p.description])];
  const ctx = goalContext(lexicon, texts, playbooks.flatMap((p) => p.intent));
  const analyse = (text: string) => read(text, lexicon).terms;
  const analyser = { key, fn: analyse };
  const readOnly = tools.filter((t) => t.effect === 'read_only');
  // how many playbooks use a tool: the general-purpose tools, offered when nothing closer fits
  const uses = new Map<string, number>();
  for (const p of playbooks) for (const s of new Set(p.steps.map((x) => x.tool))) uses.set(s, (uses.get(s) ?? 0) + 1);
  const actsOf = (t: ReaderTool): Set<string> => {
    const ws = tokens(`${t.name} ${t.description} ${t.when ?? ''}`);
    const out = new Set<string>();
    for (let i = 0; i < ws.length; i++) {
      // a participle describes what the tool acts on ("old rotated logs"): it names no act of the tool's
      if (/^[a-z]{3,}ed$/.test(ws[i]!)) continue;
      for (let n = 1; n <= Math.min(lexicon.longest, ws.length - i); n++) {
        const a = lexicon.acts.get(phraseKey(ws.slice(i, i + n).join(' ')));
        if (a) out.add(a);
      }
    }
    return out;
  };
  const toolTerms = new Map(tools.map((t) => [t.name, new Set([...analyse(`${t.name} ${t.description} ${t.when ?? ''}`), ...tokens(`${t.name} ${t.description} ${t.when ?? ''}`).map(stem)])]));
  // a phrase is matched on its own words (the part's side carries the lexicon's words, so "ram"
  // meets the phrase "memory"); a phrase of stop words only ("is everything ok") on what it means
  const ownTerms = (ph: string): Set<string> => {
    const r = read(ph, lexicon);
    const own = r.words.filter((w) => !STOP.has(w) && !lexicon.stop.has(w)).map(stem);
    return new Set(own.length ? own : r.terms);
  };
  const phraseTerms = new Map(playbooks.map((p) => [p.id, p.intent.map(ownTerms)]));
  const spoken = new Set<string>();
  for (const t of texts) for (const term of analyse(t)) spoken.add(term);
  // a tool's own words, and (as its description's tail) the intent phrases of the playbooks that
  // run it: "health check" then finds the tools a health check runs (document expansion). A later
  // step that reads the thing the playbook requires (a service's processes and sockets after its
  // unit's state) is about that thing, not about the playbook's words: "which services failed" is
  // not a question for what listens
  const intents = new Map<string, string[]>();
  for (const p of playbooks) for (const st of new Set(p.steps.filter((x, i) => i === 0 || !readsRequired(p, x)).map((x) => x.tool))) intents.set(st, [...(intents.get(st) ?? []), ...p.intent]);
  // a tool's words and the intents and description of the focused playbooks (at most two tools)
  // that run it: a general check-up's words ("healthy") say nothing of each tool it runs, and a
  // tool most playbooks run (the journal) is not about what each of them is about
  const focusedWords = (t: ReaderTool): string[] => {
    if ((uses.get(t.name) ?? 0) > 3) return [];
    const focused = playbooks.filter((p) => p.steps.length <= 2 && p.steps.some((x) => x.tool === t.name));
    return focused.flatMap((p) => [...p.intent, p.description].flatMap((text) => analyse(text)));
  };
  const focusedTerms = new Map(tools.map((t) => [t.name, new Set([...toolTerms.get(t.name)!, ...focusedWords(t)])]));
  // whether one read-only tool's terms hold every term of `all` and, when given, one of `any`
  const speaks = (termsOf: ReadonlyMap<string, ReadonlySet<string>>, all: readonly string[], any: readonly string[] = []): boolean =>
    readOnly.some((t) => { const own = termsOf.get(t.name)!; return all.every((x) => own.has(x)) && (any.length === 0 || any.some((x) => own.has(x))); });
  const expand = (t: AgentTool): AgentTool => {
    const more = intents.get(t.name);
    return more ? { ...t, description: `${t.description} ${[...new Set(more)].join('; ')}` } : t;
  };
  // what a part measures ("the space a folder takes", "the size of the journal"): the thing's
  // terms and the attribute's, which one read-only tool must speak of together; null when the part
  // measures nothing, or names a path or unit that is not a folder (it is about that entity)
  const measured = (part: GoalPart): { object: string[]; attr: string[]; folder: boolean } | null => {
    const f = part.focus;
    if (!f?.attribute) return null;
    const folder = read(part.text, lexicon).groups.includes('folder');
    if (!folder && (part.entities.path || part.entities.unit)) return null;
    const obj = read(folder ? 'folder' : f.text, lexicon);
    // a number names which one ("port 22", "the 2nd disk"), never what kind of thing: no tool's words carry it
    const object = (obj.groups.length ? obj.groups.map(stem) : obj.terms).filter((x) => !/^\d+(?:st|nd|rd|th)?$/.test(x));
    if (object.length === 0) return null;
    // a size is what a disk-space tool reports too ("how big is the sd card": df), but the space
    // a folder takes is disk space only
    const attr = folder ? ['disk', 'space'].map(stem) : f.attribute === 'size' ? ['size', 'disk', 'big', 'space'].map(stem) : read(f.attribute, lexicon, ctx.vocab).terms;
    return { object, attr, folder };
  };
  // whether one of a playbook's tools measures what the part measures (a playbook that only stats
  // a folder's entry does not tell the space the folder takes)
  const measures = (part: GoalPart, pb: ReaderPlaybook): boolean => {
    const m = measured(part);
    return !!m && pb.steps.some((st) => { const own = toolTerms.get(st.tool); return !!own && m.object.every((x) => own.has(x)) && m.attr.some((x) => own.has(x)); });
  };
  const firstWhen = (t: AgentTool) => (t.when ?? t.description).split(/[,;]/)[0]!.trim();

  const reader: GoalReader = {
    ctx, key, analyse,
    understand: (goal, now) => understand(goal, ctx, now),
    rank: (part, ts, k) => (ts.length ? indexFor(ts.map(expand), analyser).rankTerms(part.reading.terms, k) : []),
    match(part, pbs) {
      if (pbs.length === 0) return [];
      const docs = pbs.map((p) => ({ name: p.id, description: p.description, when: p.intent.join('; '), input_schema: {} }));
      // the subject's terms only: a word outside what the part asks about never selects a playbook
      const subject = part.subjectReading;
      const q = new Set(subject.terms);
      const out: PartMatch[] = [];
      for (const r of indexFor(docs, analyser).rankTerms(subject.terms, pbs.length)) {
        const phrases = phraseTerms.get(r.name) ?? pbs.find((p) => p.id === r.name)!.intent.map(ownTerms);
        let coverage = 0;
        let met: string[] = [];
        for (const t of phrases) {
          if (t.size === 0) continue;
          const hit = [...t].filter((x) => q.has(x));
          if (hit.length / t.size > coverage) { coverage = hit.length / t.size; met = hit; }
        }
        if (coverage >= 0.5) {
          const words = subject.words.filter((w) => read(w, lexicon).terms.some((x) => met.includes(x)));
          out.push({ id: r.name, score: r.score, coverage, words: words.length ? [...new Set(words)] : met });
        }
      }
      // a playbook that takes the unit or path the part names is about that thing: it goes first
      // ("did postgresql fail" is that unit's status before it is the list of failed units)
      const named = (id: string) => Object.values(pbs.find((p) => p.id === id)!.slots ?? {})
        .some((sl) => (sl.extractor === 'unit' && part.entities.unit) || (sl.extractor === 'path' && part.entities.path)) ? 1 : 0;
      // and one whose tools measure what the part measures goes before one that only names the thing
      // ("how much space does the folder /var/log take": du, not stat's size of the folder's entry)
      const fits = (id: string) => (measures(part, pbs.find((p) => p.id === id)!) ? 1 : 0);
      return out.sort((a, b) => named(b.id) - named(a.id) || fits(b.id) - fits(a.id) || b.score * b.coverage - a.score * a.coverage || (a.id < b.id ? -1 : 1));
    },
    unmeasured(part) {
      const f = part.focus;
      // "is my sd card healthy": one read-only tool must speak of the thing and of what it is
      // said to be, in its own words or the intents of a focused playbook that runs it
      if (f?.groups && !part.entities.path && !part.entities.unit) {
        return speaks(focusedTerms, f.groups.map(stem)) ? null : `that of the ${f.text}`;
      }
      const m = measured(part);
      if (!m || speaks(toolTerms, m.object, m.attr)) return null;
      return m.folder ? 'the space a folder takes' : `the ${f!.attribute === 'size' ? 'size' : f!.attribute} of ${f!.text}`;
    },
    uncovered: (part) => part.reading.groups.filter((g) => !spoken.has(stem(g))),
    unspoken(part) {
      if (!part.focus?.subject || part.entities.unit || part.entities.path) return [];
      const r = read(part.focus.text, lexicon);
      return r.terms.length > 0 && r.terms.every((t) => !spoken.has(t)) ? r.words.filter((w) => !STOP.has(w)) : [];
    },
    actTool(part) {
      const a = part.action;
      if (!a || a.head.length === 0) return null;
      return tools.find((t) => t.effect === 'destructive' && actsOf(t).has(a.act) && a.head.every((h) => toolTerms.get(t.name)!.has(h))) ?? null;
    },
    workingRequest(part) {
      const a = part.action;
      const tool = a ? tools.find((t) => t.effect === 'destructive' && actsOf(t).has(a.act)) : undefined;
      if (!tool?.when) return null;
      // "prune, clean up or vacuum the log archive, …": the first verb, and the first object named
      const isAct = (w: string) => lexicon.acts.has(phraseKey(w)) || ['or', 'and', 'up', 'out', 'down'].includes(w);
      const segments = tool.when.split(',').map((x) => x.trim().split(/\s+/));
      const verb = segments[0]![0]!;
      for (const seg of segments) {
        let i = 0;
        while (i < seg.length && isAct(seg[i]!.toLowerCase())) i++;
        if (i > 0 && i < seg.length) return { tool: tool.name, request: `${verb} ${seg.slice(i).join(' ')}` };
      }
      return null;
    },
    offers(part, n = 3) {
      const ranked = readOnly.length ? indexFor(readOnly, analyser).rankTerms(part.reading.terms, n).map((r) => readOnly.find((t) => t.name === r.name)!) : [];
      const general = [...readOnly].sort((x, y) => (uses.get(y.name) ?? 0) - (uses.get(x.name) ?? 0) || (x.name < y.name ? -1 : 1));
      const chosen = [...ranked, ...general.filter((t) => !ranked.includes(t))].slice(0, n);
      return chosen.map(firstWhen);
    },
  };
  if (cache.size >= 8) cache.delete(cache.keys().next().value!);
  cache.set(key, reader);
  return reader;
}

/** Whether a playbook's step takes one of the playbook's required slots as an argument. */
function readsRequired(p: ReaderPlaybook, step: ReaderPlaybook['steps'][number]): boolean {
  const required = Object.entries(p.slots ?? {}).filter(([, sl]) => sl.required).map(([name]) => `{${name}}`);
  return Object.values(step.args ?? {}).some((v) => typeof v === 'string' && required.includes(v));
}
