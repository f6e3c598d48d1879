/**
 * The `answer@1` renderer: facts in, a short plain-text answer for a person out,
 * made of sentences that each name the facts they were made from.
 *
 * Its input is the canonical JSON the runtime builds from committed facts
 * (`{goal, facts: [{step, seq, schema, fact, trust}], missing, parts?}`, seam
 * §3); `parts` is the coverage recorded before the answer step (seam §2), and
 * when it is there the answer speaks part by part, in the goal's order: a
 * part's selection (a count, a list, a name among them, the lines), its facts
 * (each said once in the whole answer), the window it read, and what of it was
 * not checked and why — the words coverage decided, never decided again here.
 * Every sentence carries its sources (the step and the seq of each fact it
 * was made from) or is a named fixed phrase (seam §4); a fact's sentence
 * function may say two sentences, and each is kept apart so that the same
 * sentence is never said twice. Every string that
 * came from a fact is shown only as a short quoted value ("…"), control
 * characters flattened, so text from a log line can never read as a sentence
 * of the answer, let alone as an instruction; enum values are printed only
 * when they are one of the schema's words. It never executes, fetches or
 * follows anything a fact says, and it does not echo the goal back.
 *
 * The sentences for the machine-state schemas are in sentences.ts (one
 * function per schema, null-aware: an absent value is said to be unknown);
 * a schema that declares its own `x-sentence` is said through it (template.ts);
 * overall.ts adds one closing line when several facts carry a state.
 */
import { humanBytes, num, oneOf, quote, STATES, str } from './words.js';
import { SENTENCES } from './sentences.js';
import { templateSentence } from './template.js';
import { overall, type AnswerFact } from './overall.js';
import { select, type Selection } from '../../src/agent/answer/select.js';
import { selectionSentences } from './selection.js';
import type { AnswerSentence, EventOf } from '../../src/ledger/events.js';

export { QUOTE_MAX, quote, humanBytes } from './words.js';

/** A part of the goal as coverage recorded it (the answer step's input). */
export type CoveredPart = EventOf<'coverage'>['parts'][number];

export interface AnswerInput {
  goal: string;
  facts: AnswerFact[];
  missing: string[];
  parts?: CoveredPart[];
}
export interface Answer {
  text: string;
  cites: string[];
  sentences: AnswerSentence[];
}

/** Longest answer text, in characters (answer@1's maxLength): sentences past it are left out, and the answer says so. */
export const MAX_TEXT = 6000;

/** One or two sentences about a disk_usage@1 fact. */
function diskSentence(fact: Record<string, unknown>): string {
  const fullest = fact.fullest;
  if (typeof fullest !== 'object' || fullest === null) return 'The df capture shows no filesystem with a use%.';
  const f = fullest as Record<string, unknown>;
  const used = num(f.used_percent);
  const state = oneOf(f.state, ['ok', 'warning', 'critical'] as const);
  const avail = num(f.available_bytes);
  const detail = [state, avail !== null ? `${humanBytes(avail)} free` : null].filter(Boolean).join(', ');
  let s = `${quote(f.mount)} is ${used ?? '?'}% full${detail ? ` (${detail})` : ''}.`;
  const others = Array.isArray(fact.filesystems)
    ? fact.filesystems.filter((r) => {
        const x = (typeof r === 'object' && r !== null ? r : {}) as Record<string, unknown>;
        const same = x.mount === f.mount && x.filesystem === f.filesystem;
        return !same && (num(x.used_percent) ?? 0) >= 80;
      }).length
    : 0;
  if (others > 0) s += ` ${others} other filesystem${others === 1 ? ' is' : 's are'} at 80% or more.`;
  return s;
}

/** One or two sentences about a log_summary@2 fact. */
function logSentence(fact: Record<string, unknown>): string {
  const count = num(fact.error_count);
  const first = str(fact.first_error);
  // no line named a host: nothing was read (an empty window, "-- No entries --"), which is not a clean log
  const empty = count === 0 && str(fact.host) === null && first === null;
  let s =
    count === null ? 'The log window says some lines were not returned, so failure lines were not counted'
    : empty ? 'The log for that window is empty: there were no lines to check'
    : count === 0 ? 'The log shows no failure lines'
    : `The log shows ${count} failure line${count === 1 ? '' : 's'}`;
  if (first !== null || str(fact.first_error_at) !== null) {
    s += `; the first: ${first !== null ? quote(first) : '(message redacted)'}`;
    if (str(fact.first_error_at)) s += ` at ${quote(fact.first_error_at)}`;
    if (str(fact.service)) s += ` from ${quote(fact.service)}`;
    if (str(fact.host)) s += ` on ${quote(fact.host)}`;
  }
  s += '.';
  const sev = oneOf(fact.max_severity, ['critical', 'error', 'warning', 'info', 'debug'] as const);
  if (sev) s += ` Highest severity stated: ${sev}.`;
  if (fact.service_restarted === true) s += ' A service was started or restarted in that window.';
  return s;
}

/** A sentence function's text in sentences: split after ". " outside quoted values. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '.' || c === '?' || c === '!') && text[i + 1] === ' ') {
      out.push(text.slice(from, i + 1).trim());
      from = i + 2;
    }
  }
  const rest = text.slice(from).trim();
  if (rest) out.push(rest);
  return out.filter((x) => x.length > 0);
}

/** The sentences a fact says of itself: its schema's own sentence, its sentence function, or the neutral line. */
function factSentences(f: AnswerFact, goal: string): string[] {
  const speak = f.schema === 'disk_usage@1' ? diskSentence : f.schema === 'log_summary@2' ? logSentence : Object.hasOwn(SENTENCES, f.schema) ? SENTENCES[f.schema] : undefined;
  // the schema's own sentence wins: its writer said how its facts read
  const own = f.sentence !== undefined ? templateSentence(f.sentence, f.fact) : null;
  return splitSentences(own ?? (speak ? speak(f.fact, goal) : `Step ${quote(f.step)} produced a ${/^[a-z][a-z0-9_]*@\d+$/.test(f.schema) ? f.schema : quote(f.schema)} fact.`));
}

/** Sentences that are shown lines: each goes on a line of its own. */
const LINES = new WeakSet<AnswerSentence>();

/** Whether a fact carries a state worse than ok (said beside a selection, which otherwise speaks alone). */
const alarming = (f: AnswerFact): boolean => { const st = oneOf(f.fact.state, STATES); return st === 'warning' || st === 'critical'; };

/** Render the answer; throws with the field path when the input is not the documented shape. */
export function renderAnswer(input: AnswerInput): Answer {
  const out: AnswerSentence[] = [];
  const src = (f: AnswerFact) => ({ step: f.step, seq: f.seq });
  // one sentence said once: the same words again only add their sources to the first
  const put = (s: AnswerSentence) => {
    const same = out.find((o) => o.text === s.text && o.fixed === s.fixed);
    if (!same) { out.push(s); return; }
    for (const f of s.from) if (!same.from.some((x) => x.step === f.step && x.seq === f.seq)) same.from.push(f);
  };
  const spoken = new Set<string>();
  // a second reading of the same kind (load read twice, moments apart) repeats the first: said once, from the first
  const shapes = new Set<string>();
  const shape = (f: AnswerFact, t: string) => `${f.schema}\u0000${t.replace(/\d+(?:\.\d+)?/g, '#')}`;
  const sayFact = (f: AnswerFact, part?: number) => {
    if (spoken.has(f.step)) return;
    spoken.add(f.step);
    for (const t of factSentences(f, input.goal)) {
      if (shapes.has(shape(f, t)) && !out.some((o) => o.text === t)) continue;
      shapes.add(shape(f, t));
      put({ text: t, ...(part !== undefined ? { part } : {}), from: [src(f)] });
    }
  };
  if (input.parts) {
    input.parts.forEach((p, i) => speakPart(p, i, input, put, sayFact));
    const said = input.facts.filter((f) => spoken.has(f.step));
    const closing = overall(said);
    if (closing) put({ text: closing, from: said.filter((f) => Object.hasOwn(f.fact, 'state') || f.schema === 'failed_units@1').map(src) });
  } else {
    for (const f of input.facts) sayFact(f);
    const closing = overall(input.facts);
    if (closing) put({ text: closing, from: input.facts.filter((f) => Object.hasOwn(f.fact, 'state') || f.schema === 'failed_units@1').map(src) });
    if (input.missing.length > 0) put({ text: `Not answered: ${input.missing.map((m) => quote(m)).join(', ')}.`, from: [], fixed: 'not-answered' });
  }
  if (input.facts.length === 0 && !input.parts?.length) put({ text: 'No facts were gathered, so there is nothing to answer from.', from: [], fixed: 'no-facts' });
  return finish(out);
}

/** One part of the goal, as coverage decided it. */
function speakPart(p: CoveredPart, i: number, input: AnswerInput, put: (s: AnswerSentence) => void, sayFact: (f: AnswerFact, part?: number) => void): void {
  const facts = p.steps.map((st) => input.facts.find((f) => f.step === st)).filter((f): f is AnswerFact => f !== undefined);
  const answering = facts.filter((f) => p.from.some((x) => x.step === f.step));
  if (p.status === 'unchecked') {
    for (const t of splitSentences(p.said ?? 'This could not be checked.')) put({ text: t, part: i, from: [], fixed: 'unchecked' });
    if (p.offers?.length) put({ text: `I can check instead: ${p.offers.map((o) => `"${o}"`).join(', ')}.`, part: i, from: [], fixed: 'offers' });
    // what was read beside it is true and may be said, but it does not answer the part
    for (const f of facts) sayFact(f, i);
    return;
  }
  const sel: Selection | null = select(p.ask, answering, p.text);
  if (sel) {
    const selection = { kind: sel.kind, ...(sel.name ? { name: sel.name } : {}), ...(sel.noun ? { noun: sel.noun } : {}), field: sel.field, result: sel.result };
    const said = selectionSentences(sel);
    said.forEach((t, k) => {
      const s: AnswerSentence = { text: t, part: i, from: sel.from, selection };
      // the lines themselves, each on a line of its own under the sentence that introduces them
      if (k > 0 && said[0]!.endsWith(':')) LINES.add(s);
      put(s);
    });
  }
  // a why: the symptom first — the first sentence of the first fact that answers it
  const order = p.ask?.kind === 'why' ? [...answering, ...facts.filter((f) => !answering.includes(f))] : facts;
  // beside a selection, only a fact whose state is not ok is worth a word
  for (const f of order) if (!sel || alarming(f)) sayFact(f, i);
  if (p.window) put({ text: `Time window read: ${p.window.label}.`, part: i, from: p.window.from });
  if (p.status === 'partial' && p.said) for (const t of splitSentences(p.said)) put({ text: t, part: i, from: [], fixed: 'not-checked' });
}

/** The text (a part's sentences on one line, each part on its own), bounded, and the steps cited. */
function finish(all: AnswerSentence[]): Answer {
  const kept: AnswerSentence[] = [];
  let length = 0;
  for (const s of all) {
    if (length + s.text.length + 1 > MAX_TEXT - 80) {
      kept.push({ text: 'The rest is left out here; pico show --full prints every fact.', from: [], fixed: 'cut' });
      break;
    }
    kept.push(s);
    length += s.text.length + 1;
  }
  let text = '';
  kept.forEach((s, k) => {
    const prev = kept[k - 1];
    const gap = !prev ? '' : LINES.has(s) ? '\n  ' : LINES.has(prev) ? '\n' : prev.part === s.part ? (s.part !== undefined || prev.part === undefined ? ' ' : '\n') : '\n';
    text += `${gap}${s.text}`;
  });
  const cites: string[] = [];
  for (const s of kept) for (const f of s.from) if (!cites.includes(f.step)) cites.push(f.step);
  return { text, cites, sentences: kept };
}
