/**
 * The `answer@1` renderer: facts in, a short plain-text answer for a person out.
 *
 * Its input is the canonical JSON the runtime builds from committed facts
 * (`{goal, facts: [{step, schema, fact, trust}], missing}`). Every string that
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
import { humanBytes, num, oneOf, quote, str } from './words.js';
import { SENTENCES } from './sentences.js';
import { templateSentence } from './template.js';
import { overall, type AnswerFact } from './overall.js';

export { QUOTE_MAX, quote, humanBytes } from './words.js';

export interface AnswerInput {
  goal: string;
  facts: AnswerFact[];
  missing: string[];
}
export interface Answer {
  text: string;
  cites: string[];
}


const MAX_TEXT = 2000;

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

/** Render the answer; throws with the field path when the input is not the documented shape. */
export function renderAnswer(input: AnswerInput): Answer {
  const sentences: string[] = [];
  const cites: string[] = [];
  for (const f of input.facts) {
    const speak = f.schema === 'disk_usage@1' ? diskSentence : f.schema === 'log_summary@2' ? logSentence : Object.hasOwn(SENTENCES, f.schema) ? SENTENCES[f.schema] : undefined;
    // the schema's own sentence wins: its writer said how its facts read
    const own = f.sentence !== undefined ? templateSentence(f.sentence, f.fact) : null;
    sentences.push(own ?? (speak ? speak(f.fact, input.goal) : `Step ${quote(f.step)} produced a ${/^[a-z][a-z0-9_]*@\d+$/.test(f.schema) ? f.schema : quote(f.schema)} fact.`));
    if (!cites.includes(f.step)) cites.push(f.step);
  }
  const closing = overall(input.facts);
  if (closing) sentences.push(closing);
  if (input.facts.length === 0) sentences.push('No facts were gathered, so there is nothing to answer from.');
  if (input.missing.length > 0) sentences.push(`Not answered: ${input.missing.map(quote).join(', ')}.`);
  const text = sentences.join(' ');
  return { text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text, cites };
}
