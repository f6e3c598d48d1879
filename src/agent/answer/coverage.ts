/**
 * Coverage of the goal's parts, decided once (seam §2, design §12).
 *
 * Why one decision: the renderer used to speak the facts and explain.ts then
 * added notes on the parts left, so the two could disagree — a part answered
 * in one sentence and "could not check" for a fragment of itself in the next,
 * a window line under a disk answer, step ids after a replan. Here, before
 * the answer step runs, the session's ledger is read once and each part of
 * the goal gets one status — answered, partial or not checked — with the
 * facts that answer it, the checks of it that hold no fact and why in plain
 * words, and the window its checks read. The loop records it as a `coverage`
 * event; the answer step reads it in its input and the loop's outcome reads
 * it too, so what is said and what is counted are the same decision, and a
 * replay reads the same event.
 *
 * The rules:
 * - a part's checks are the steps every plan (a replan too) and every
 *   follow-up gave it, and only steps that some plan really holds;
 * - a part that names a unit, process, path or package is answered only by a
 *   fact that speaks of that name (named.ts); a request to change something
 *   only by the destructive check that makes the change;
 * - a part whose ask selects from the facts (a count, a list, a name among
 *   them, the lines) is partial when its facts cannot make that selection
 *   whole (select.ts);
 * - a part answered from a read the tool could make only in part is partial;
 * - why a check holds no fact is the tool's own cause in words when it gave
 *   one (absent, unreadable and empty are different causes), else the kind of
 *   failure in words — never a step id or a tool name;
 * - a window is said only for a part whose answering checks read one;
 * - a fragment of the part before it (its words only point back at it —
 *   "their ips" — or are filler — "yeah") is not a part of its own, nor is a
 *   sentence that only tells ("SSH timed out.") in a goal that asks something
 *   another part checks: it is the question's context;
 * - what can be checked instead is offered only when it is about the part.
 */
import type { EventOf, LedgerEvent } from '../../ledger/events.js';
import { windowLabel } from '../goal/entities.js';
import { inWords } from '../goal/explain.js';
import { namedByArgs, speaksOf } from './named.js';
import { select, selects, selectionWhole, type Ask } from './select.js';

export type Coverage = Omit<EventOf<'coverage'>, 'seq' | 't' | 'session_id' | 'type'>;
type CoveredPart = Coverage['parts'][number];
type PlanCreated = Extract<LedgerEvent, { type: 'plan_created' }>;

/** A part as plan_created records it: today's fields and the seam §1 fields, each optional. */
interface RecordedPart {
  text: string;
  steps: string[];
  window?: string;
  unchecked?: string;
  offers?: string[];
  subject?: string;
  ask?: Ask;
  act?: { verb: string; object: string | null };
}

/** A plan_extended event (seam §5), read loosely: its fields arrive with the follow-ups. */
interface Extended {
  steps?: { step: string; tool: string | null; args: Record<string, unknown> }[];
  because?: { step?: string; seq: number; why?: string }[];
  part?: number | string;
}

export interface CoverageWords {
  /** a check in words: what the tool reads, with the values it was given */
  check(tool: string, args: Record<string, unknown>): string;
  /** whether a tool changes the machine */
  destructive(tool: string): boolean;
  /** whether an offer ("what can be checked instead") is about the part's words */
  topical(offer: string, part: string): boolean;
}

// words that only point back at the part before ("their ips", "its size") or say nothing ("yeah")
const POINTS_BACK = /^(?:their|its|it|them|those|these|that|this|the\s+same|same|both|either)\b/i;
const FILLER = new Set(['yeah', 'yes', 'yep', 'ya', 'right', 'ok', 'okay', 'thanks', 'thank', 'you', 'thx', 'ty', 'please', 'pls', 'plz', 'cheers', 'cool', 'sure', 'lol', 'hmm', 'eh', 'huh', 'no', 'nope', 'innit']);

// a part that opens with a question word or a request asks, wherever its sentence ends
const ASKS = /^(?:(?:please|pls|and|also|so|then|now|hey|ok|okay)\s+)*(?:what|whats|what's|why|how|when|where|which|who|whose|is|are|was|were|do|does|did|can|could|will|would|should|has|have|any|check|show|list|tell|give|find|look|print|count|get|see|read|display|dump|tail|watch|report|compare|explain)\b/i;

const say = (text: string): string => text.replace(/[\s.]+$/, '');

/** What a part answered from a read its tool could make only in part (a declared partial exit code) says. */
export const READ_IN_PART = 'This answer is partial: a check could not read everything it was asked to, so it covers only what it could read.';

/**
 * Whether a part only tells (its sentence ends in "." or "!") in a goal that asks elsewhere ("So I
 * came home and it was down. What happened?"): what it tells is the question's context, not a
 * question of its own.
 */
function tellsOnly(goal: string, text: string): boolean {
  if (!goal.includes('?') || ASKS.test(text.trim())) return false;
  const at = goal.indexOf(text);
  if (at < 0) return false;
  const end = /[.!?]/.exec(goal.slice(at + text.length));
  return end !== null && end[0] !== '?';
}

/** Why a step holds no fact, in words: the tool's own cause when it gave one, else the failure's kind. */
function whyNot(events: readonly LedgerEvent[], step: string): string {
  const mine = events.filter((e) => 'step' in e && (e as { step: string }).step === step && 'error' in e);
  const failure = mine.findLast((e) => e.type !== 'step_failed') ?? mine.findLast((e) => e.type === 'step_failed');
  const cause = (failure as { cause?: { plain?: unknown } } | undefined)?.cause?.plain;
  if (typeof cause === 'string' && cause.trim()) return say(cause.trim());
  return inWords(failure);
}

/** The parts every plan recorded, merged by position (a replan records the goal's parts again). */
function recordedParts(plans: readonly PlanCreated[]): RecordedPart[] {
  const parts: RecordedPart[] = [];
  for (const pl of plans) {
    (pl.parts as RecordedPart[] | undefined)?.forEach((p, i) => {
      const had = parts[i];
      if (!had) { parts[i] = { ...p, steps: [...p.steps] }; return; }
      for (const st of p.steps) if (!had.steps.includes(st)) had.steps.push(st);
      if (had.steps.length > 0) { delete had.unchecked; delete had.offers; }
    });
  }
  return parts;
}

/** Decide the coverage of a session's goal from its ledger (before the answer step runs). */
export function decideCoverage(events: readonly LedgerEvent[], words: CoverageWords): Coverage {
  const plans = events.filter((e): e is PlanCreated => e.type === 'plan_created');
  const user = events.find((e) => e.type === 'user_input');
  const goal = user?.type === 'user_input' ? user.text : '';
  // every check the session's plan holds (a replan's plan keeps what ran and drops what it replaced), and every follow-up
  const checks = new Map<string, { tool: string; args: Record<string, unknown> }>();
  for (const s of plans.at(-1)?.steps ?? []) if (s.tool) checks.set(s.step, { tool: s.tool, args: s.args });
  const extended = events.filter((e) => (e.type as string) === 'plan_extended') as unknown as Extended[];
  for (const x of extended) for (const s of x.steps ?? []) if (s.tool) checks.set(s.step, { tool: s.tool, args: s.args });
  const facts = new Map<string, { seq: number; schema: string; fact: unknown }>();
  for (const e of events) if (e.type === 'fact_added') facts.set(e.step, { seq: e.seq, schema: e.schema, fact: e.fact });
  const outputs = new Map<string, number | null>();
  for (const e of events) if (e.type === 'tool_output') outputs.set(e.step, e.exit_code);

  let recorded = recordedParts(plans);
  // no parts recorded (one question): the whole goal is one part, served by every check
  if (recorded.length === 0) recorded = [{ text: goal, steps: [...checks.keys()] }];
  // a follow-up's steps count for the part that caused it
  const followups = recorded.map(() => [] as NonNullable<CoveredPart['followups']>);
  for (const x of extended) {
    const at = typeof x.part === 'number' ? x.part : typeof x.part === 'string' ? recorded.findIndex((p) => p.text === x.part) : 0;
    const i = at >= 0 && at < recorded.length ? at : 0;
    for (const s of x.steps ?? []) {
      if (!recorded[i]!.steps.includes(s.step)) recorded[i]!.steps.push(s.step);
      followups[i]!.push({ step: s.step, because: (x.because ?? []).map((b) => b.seq), why: (x.because ?? []).map((b) => b.why).find((w): w is string => typeof w === 'string') ?? '' });
    }
  }

  const parts: CoveredPart[] = [];
  recorded.forEach((p, i) => {
    const steps = p.steps.filter((s) => checks.has(s));
    // a fragment of the part before it is not a part of its own
    const said = p.text.toLowerCase().split(/[^a-z0-9']+/).filter(Boolean);
    const fragment = steps.length === 0 && !p.act && parts.length > 0 && (POINTS_BACK.test(p.text.trim()) || (said.length > 0 && said.every((w) => FILLER.has(w))));
    if (fragment || (steps.length === 0 && !p.act && tellsOnly(goal, p.text) && recorded.some((q) => q !== p && q.steps.some((st) => checks.has(st))))) return;
    parts.push(coverPart(p, steps, followups[i]!, { events, checks, facts, outputs, words }));
  });
  // one part: its own words need not be repeated in what was not checked
  const only = parts.length === 1 ? parts[0]! : null;
  if (only?.status === 'partial' && only.said?.startsWith('Not checked for ')) only.said = `Not checked: ${only.said.slice(`Not checked for "${only.text.slice(0, 120).replace(/"/g, "'")}": `.length)}`;

  const stopped = events.some((e) => e.type === 'breaker_tripped' && e.breaker === 'loop') ? 'The checks stopped early: a check that had failed was proposed again.' : undefined;
  return { parts, ...(stopped ? { stopped } : {}) };
}

interface Held {
  events: readonly LedgerEvent[];
  checks: Map<string, { tool: string; args: Record<string, unknown> }>;
  facts: Map<string, { seq: number; schema: string; fact: unknown }>;
  outputs: Map<string, number | null>;
  words: CoverageWords;
}

/** One part's coverage. */
function coverPart(p: RecordedPart, steps: string[], followups: NonNullable<CoveredPart['followups']>, h: Held): CoveredPart {
  const base: CoveredPart = {
    text: p.text, status: 'unchecked', steps, from: [],
    ...(p.subject ? { subject: p.subject } : {}), ...(p.ask ? { ask: p.ask } : {}), ...(p.act ? { act: p.act } : {}),
    ...(followups.length ? { followups } : {}),
  };
  const offers = (p.offers ?? []).filter((o) => h.words.topical(o, p.text));
  const quoted = `"${p.text.slice(0, 120).replace(/"/g, "'")}"`;
  if (steps.length === 0) {
    return { ...base, said: p.unchecked ?? `I could not check ${quoted}: nothing here was planned for it.`, ...(offers.length ? { offers } : {}) };
  }
  const held = steps.filter((s) => h.facts.has(s));
  const left = steps.filter((s) => !h.facts.has(s)).map((s) => ({ step: s, what: h.words.check(h.checks.get(s)!.tool, h.checks.get(s)!.args), why: whyNot(h.events, s) }));
  const named = p.ask?.name ?? namedByArgs(steps.map((s) => h.checks.get(s)!.args)) ?? undefined;
  // what may answer the part: a change only by the check that makes it, a named thing only by a read that names it
  const answering = held.filter((s) => {
    const c = h.checks.get(s)!;
    if (p.act) return h.words.destructive(c.tool);
    if (!named || speaksOf(named, c.args, h.facts.get(s)!.fact)) return true;
    // "is NAME among them": a list of such things answers it, with the name in it or not
    return p.ask?.kind === 'member' && select(p.ask, [{ step: s, ...h.facts.get(s)! }]) !== null;
  });
  const from = answering.map((s) => ({ step: s, seq: h.facts.get(s)!.seq }));
  const withNamed = named ? { named } : {};
  if (answering.length === 0) {
    const whys = [...new Set(left.map((l) => l.why))];
    const said = left.length
      ? `I could not check ${quoted}: ${whys.length === 1 ? whys[0] : leftWords(left)}.`
      : named ? `I could not check ${quoted}: nothing that was read speaks of "${named}".` : `I could not check ${quoted}.`;
    return { ...base, ...withNamed, left, said, ...(offers.length ? { offers } : {}) };
  }
  const window = answering.map((s) => ({ s, label: windowLabel(h.checks.get(s)!.args) })).find((x) => x.label !== null);
  const windowed = window ? { window: { label: window.label!, from: [{ step: window.s, seq: h.facts.get(window.s)!.seq }] } } : {};
  // a read the tool could make only in part (a declared partial exit code)
  const cut = answering.filter((s) => !!h.outputs.get(s));
  const selection = select(p.ask, answering.map((s) => ({ step: s, ...h.facts.get(s)! })), p.text);
  const asking = selects(p.ask);
  const whole = asking && selection !== null && selectionWhole(selection);
  // a follow-up looks further than the part asked: what it could not read never makes the part partial
  // (the answer's follow-up notes say it, with why it was looked at: agent/followup-notes.ts)
  const further = new Set(followups.map((f) => f.step));
  const leftAsked = left.filter((l) => !further.has(l.step));
  const notes: string[] = [];
  // a whole selection is what was asked: a check beside it that read nothing is not
  if (leftAsked.length && !whole) notes.push(leftWords(leftAsked));
  if (asking && !selection) notes.push(`what was read does not list ${nounWords(p.ask!)}`);
  const said = [
    ...(notes.length ? [`Not checked for ${quoted}: ${notes.join('; ')}.`] : []),
    ...(cut.length ? [READ_IN_PART] : []),
  ];
  const partial = said.length > 0 || (asking && !whole);
  return {
    ...base, ...withNamed, status: partial ? 'partial' : 'answered', from, ...windowed,
    ...(left.length ? { left } : {}),
    ...(said.length ? { said: said.join(' ') } : {}),
  };
}

/** The checks left, grouped by why: "one systemd unit's state (nginx.service) and …, because <why>". */
function leftWords(left: { what: string; why: string }[]): string {
  const byWhy = new Map<string, string[]>();
  for (const l of left) byWhy.set(l.why, [...(byWhy.get(l.why) ?? []), l.what]);
  // "X, because WHY": a cause in parentheses after a check's own parentheses (its window, its unit) read as one more detail of it
  return [...byWhy].map(([why, whats]) => `${[...new Set(whats)].join(' and ')}, because ${why}`).join('; ');
}

/** What an ask wanted listed, in words. */
function nounWords(ask: Ask): string {
  if (ask.kind === 'show') return 'the lines themselves';
  if (ask.kind === 'member' && ask.name) return `whether "${ask.name}" is among them`;
  return ask.noun ? `the ${ask.noun === 'process' ? 'processes' : `${ask.noun}s`}` : 'what was asked for';
}
