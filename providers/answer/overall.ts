/**
 * The closing line of an answer drawn from several sources (a diagnosis):
 * when two or more facts carry one of the shared state words (disk, memory,
 * load, temperature), the worst state and the areas at it, in fixed words.
 * Failed units count as a warning. It reads only state fields and counts, so
 * it can say nothing that a fact's text could have put there.
 */
import { int, oneOf, STATES, type State } from './words.js';

/** One fact of the renderer's input document (render.ts); here because the closing line reads it too. */
export interface AnswerFact {
  step: string;
  /** the seq of the fact's fact_added event: a sentence's source */
  seq: number;
  schema: string;
  fact: Record<string, unknown>;
  trust: 'T0' | 'T1' | 'T2';
  /** the schema's x-sentence, when it declares one (template.ts says it) */
  sentence?: string | string[];
}

const AREAS: Record<string, string> = {
  'disk_usage@1': 'disk', 'memory_usage@1': 'memory', 'load_processes@1': 'load', 'thermal@1': 'temperature', 'failed_units@1': 'failed units',
};

/** The state a fact carries, or null when it carries none. */
function stateOf(f: AnswerFact): State | null {
  if (f.schema === 'failed_units@1') {
    const k = int(f.fact.failed_count);
    return k === null ? null : k > 0 ? 'warning' : 'ok';
  }
  return oneOf(f.fact.state, STATES);
}

/** "Overall: warning (memory, load); the rest ok." — or null with fewer than two stated areas. */
export function overall(facts: readonly AnswerFact[]): string | null {
  const stated = facts.filter((f) => Object.hasOwn(AREAS, f.schema)).map((f) => ({ area: AREAS[f.schema]!, state: stateOf(f) })).filter((x): x is { area: string; state: State } => x.state !== null);
  if (stated.length < 2) return null;
  const rank = (s: State) => STATES.indexOf(s);
  const worst = stated.reduce((w, x) => (rank(x.state) > rank(w) ? x.state : w), 'ok' as State);
  if (worst === 'ok') return `Overall: ok (${[...new Set(stated.map((x) => x.area))].join(', ')}).`;
  const at = [...new Set(stated.filter((x) => x.state === worst).map((x) => x.area))];
  const rest = stated.filter((x) => x.state !== worst);
  return `Overall: ${worst} (${at.join(', ')})${rest.length ? `; ${rest.every((x) => x.state === 'ok') ? 'the rest ok' : [...new Set(rest.map((x) => `${x.area} ${x.state}`))].join(', ')}` : ''}.`;
}
