/**
 * What the answer says about the goal's parts, in plain words (design §12):
 * read from the session's ledger once the steps have run, so the words are a
 * function of what happened and a replay says the same.
 *
 * - a decline: each part's reason ("I can't restart nginx: no tool on this
 *   machine does that.") and up to three things that can be checked instead;
 * - the parts left: a part with no step, or whose every step failed, is named
 *   with why in words ("the tool failed", "it took too long", "a person did
 *   not approve it") — never a step id, a schema or a provider;
 * - the windows read ("Time window read: the last 30 minutes.");
 * - `unanswered`: whether some part has no fact, so the outcome is partial
 *   even when every planned step succeeded.
 *
 * The technical reasons stay where they are: in the ledger's failure events
 * and `declined`, for `pico show`.
 */
import type { LedgerEvent } from '../../ledger/events.js';
import { windowLabel } from './entities.js';

export interface Explained {
  /** the whole answer when nothing could be planned; null when a plan was made or no part was read */
  decline: string | null;
  /** sentences to add to the answer: parts not checked, windows read */
  notes: string[];
  /** some part of the goal has no fact */
  unanswered: boolean;
}

type Part = { text: string; steps: string[]; window?: string; unchecked?: string; offers?: string[] };

/** A failure event's kind in words a person reads. */
export function inWords(e: LedgerEvent | undefined): string {
  switch (e?.type) {
    // a cause the tool's manifest declares is said in its words (seam §7): absent, unreadable and empty differ
    case 'tool_failed': return e.cause?.plain ?? 'the tool failed';
    case 'tool_timeout': return 'it took too long';
    case 'tool_empty': return e.cause?.plain ?? 'what it read was empty';
    case 'approval_denied':
      // nobody could be asked (pico run has no approver) is not a refusal
      return /no approver is configured/.test(e.error) ? 'it changes the machine, so a person must approve it: submit it to the daemon and approve it with pico approve' : 'a person did not approve it';
    case 'budget_exhausted': return 'the time for this question ran out first';
    case 'breaker_tripped': return 'the checks were stopped before it';
    case 'capability_gap': return 'nothing here can read what it returned';
    case 'grammar_failed': case 'validation_failed': case 'range_failed': case 'crosscheck_failed': case 'critic_rejected':
      return 'what it returned could not be read reliably';
    case 'step_failed': return 'it was not run';
    default: return 'it could not be checked';
  }
}

const offerText = (offers: readonly string[] | undefined) =>
  offers && offers.length ? ` I can check instead: ${offers.map((o) => `"${o}"`).join(', ')}.` : '';

/**
 * The plain words for a session's answer: `held` are the steps that hold a fact, `planned`
 * whether a plan was made, `words` names a tool's check in words (what it answers). Without parts recorded (an operator's plan, an older ledger) there is
 * nothing to add.
 */
export function explain(events: readonly LedgerEvent[], held: ReadonlySet<string>, planned: boolean, words: (tool: string, args: Record<string, unknown>) => string = (t) => t, topical: (offer: string, goal: string) => boolean = () => true): Explained {
  // coverage decided once before the answer (src/agent/answer/coverage.ts): the answer said every part, nothing is added
  const coverage = events.findLast((e) => e.type === 'coverage');
  if (planned && coverage?.type === 'coverage') return { decline: null, notes: [], unanswered: coverage.parts.some((p) => p.status !== 'answered') };
  const created = [...events].reverse().find((e): e is Extract<LedgerEvent, { type: 'plan_created' }> => e.type === 'plan_created');
  if (!planned) {
    // no plan: each part's reason as planning recorded it in words, else one plain sentence
    const said: string[] = [];
    const input = events.find((e): e is Extract<LedgerEvent, { type: 'user_input' }> => e.type === 'user_input');
    for (const e of events) {
      if (e.type !== 'capability_gap' || !e.plain) continue;
      // what can be checked instead, only when it is about what was asked
      const line = `${e.plain}${offerText(e.offers?.filter((o) => topical(o, input?.text ?? '')))}`;
      if (!said.includes(line)) said.push(line);
    }
    const goal = input ? input.text.slice(0, 120) : 'this';
    return { decline: said.length ? said.join(' ') : `I could not work out how to check "${goal}" on this machine.`, notes: [], unanswered: true };
  }
  const failure = (step: string) => [...events].reverse().find((e) => 'step' in e && (e as { step: string }).step === step && 'error' in e && e.type !== 'step_failed')
    ?? [...events].reverse().find((e) => 'step' in e && (e as { step: string }).step === step && e.type === 'step_failed');
  // a plan stopped by the loop breaker says so, once
  const stopped = events.some((e) => e.type === 'breaker_tripped' && e.breaker === 'loop') ? ['The checks stopped early: a check that had failed was proposed again.'] : [];
  const tools = (created?.steps ?? []).filter((s) => s.tool !== null);
  const toolOf = (step: string) => { const t = tools.find((s) => s.step === step); return t?.tool ? words(t.tool, t.args) : step; };
  // a replan records the parts again: a part's steps are those of every plan, and it is left
  // unchecked only when no plan served it
  const plans = events.filter((e): e is Extract<LedgerEvent, { type: 'plan_created' }> => e.type === 'plan_created' && !!e.parts);
  const parts: Part[] = [];
  for (const pl of plans) {
    (pl.parts as Part[]).forEach((p, i) => {
      const had = parts[i];
      if (!had) { parts[i] = { ...p, steps: [...p.steps] }; return; }
      for (const st of p.steps) if (!had.steps.includes(st)) had.steps.push(st);
      if (had.steps.length > 0) { delete had.unchecked; delete had.offers; }
    });
  }
  if (parts.length === 0) {
    // no parts recorded (one question, no window): the checks not made, by tool, in words
    const left = tools.filter((s) => !held.has(s.step));
    const window = tools.map((t) => windowLabel(t.args)).find((w) => w !== null);
    const read = window ? [`Time window read: ${window}.`] : [];
    if (left.length === 0) return { decline: null, notes: [...read, ...stopped], unanswered: false };
    const why = left.map((s) => `${words(s.tool!, s.args)} (${inWords(failure(s.step))})`).join('; ');
    const input = events.find((e): e is Extract<LedgerEvent, { type: 'user_input' }> => e.type === 'user_input');
    const asked = left.every((s) => failure(s.step)?.type === 'approval_denied');
    const head = asked ? 'Not done' : left.length === tools.length ? `I could not check "${input?.text.slice(0, 120) ?? 'this'}"` : 'Not checked';
    return { decline: null, notes: [`${head}: ${why}.`, ...read, ...stopped], unanswered: false };
  }
  const notes: string[] = [];
  let unanswered = false;
  for (const p of parts) {
    if (p.unchecked) {
      unanswered = true;
      notes.push(`${p.unchecked}${offerText(p.offers)}`);
      continue;
    }
    const got = p.steps.filter((s) => held.has(s));
    if (got.length === 0 && p.steps.length > 0) {
      unanswered = true;
      notes.push(`I could not check "${p.text}": ${inWords(failure(p.steps[0]!))}.`);
      continue;
    }
    const left = p.steps.filter((s) => !held.has(s));
    if (left.length > 0) notes.push(`Not checked for "${p.text}": ${left.map((s) => `${toolOf(s)} (${inWords(failure(s))})`).join('; ')}.`);
    // the window read: as the part named it, else as a playbook's default set it ("today")
    const window = p.window ?? p.steps.map((st) => tools.find((t) => t.step === st)?.args).map(windowLabel).find((w) => w !== null);
    if (window) notes.push(parts.length > 1 ? `Time window read for "${p.text}": ${window}.` : `Time window read: ${window}.`);
  }
  return { decline: null, notes: [...notes, ...stopped], unanswered };
}
