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
 */

export interface AnswerFact {
  step: string;
  schema: string;
  fact: Record<string, unknown>;
  trust: 'T0' | 'T1' | 'T2';
}
export interface AnswerInput {
  goal: string;
  facts: AnswerFact[];
  missing: string[];
}
export interface Answer {
  text: string;
  cites: string[];
}

/** Longest quoted value, in characters, before it is cut with "…". */
export const QUOTE_MAX = 80;
const MAX_TEXT = 2000;

/** A fact value as quoted data: one line, no double quotes inside, at most QUOTE_MAX characters. */
export function quote(value: unknown): string {
  const flat = String(value).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/"/g, "'").trim();
  const chars = [...flat];
  const short = chars.length > QUOTE_MAX ? `${chars.slice(0, QUOTE_MAX - 1).join('')}…` : flat;
  return `"${short}"`;
}

/** A byte count for a person: GiB, MiB or KiB with one decimal. */
export function humanBytes(n: number): string {
  const units: [string, number][] = [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]];
  for (const [name, size] of units) if (n >= size) return `${(n / size).toFixed(1)} ${name}`;
  return `${n} bytes`;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const oneOf = <T extends string>(v: unknown, words: readonly T[]): T | null => (words.includes(v as T) ? (v as T) : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

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
  let s =
    count === null ? 'The log window says some lines were not returned, so failure lines were not counted'
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
    if (f.schema === 'disk_usage@1') sentences.push(diskSentence(f.fact));
    else if (f.schema === 'log_summary@2') sentences.push(logSentence(f.fact));
    else sentences.push(`Step ${quote(f.step)} produced a ${/^[a-z][a-z0-9_]*@\d+$/.test(f.schema) ? f.schema : quote(f.schema)} fact.`);
    if (!cites.includes(f.step)) cites.push(f.step);
  }
  if (input.facts.length === 0) sentences.push('No facts were gathered, so there is nothing to answer from.');
  if (input.missing.length > 0) sentences.push(`Not answered: ${input.missing.map(quote).join(', ')}.`);
  const text = sentences.join(' ');
  return { text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text, cites };
}
