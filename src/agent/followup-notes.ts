/**
 * What the answer says about the second look beyond its facts' own sentences
 * (issue 31): a follow-up that could not read what it looked at, in plain
 * words and with why it was looked at; and, for a part that asks why, that
 * nothing called for a closer look — with the signs that would have — so "no
 * cause found" is never silent. Read from the ledger, so a replay says the
 * same. The facts a follow-up read speak for themselves (their schema's
 * sentences); this adds nothing about them.
 */
import type { LedgerEvent } from '../ledger/events.js';
import { inWords } from './goal/explain.js';
import { partViews } from './followups.js';
import type { Playbook } from './playbooks.js';

/** The answer's notes about follow-ups; `words` names a tool's check in words, as the answer's other notes do. */
export function followupNotes(events: readonly LedgerEvent[], held: ReadonlySet<string>, playbooks: readonly Playbook[], words: (tool: string, args: Record<string, unknown>) => string): string[] {
  const notes: string[] = [];
  // the failure that says what went wrong (the tool's), before the step's own give-up
  const failure = (step: string) => [...events].reverse().filter((e) => 'step' in e && (e as { step: string }).step === step && 'error' in e).sort((a, b) => Number(a.type === 'step_failed') - Number(b.type === 'step_failed'))[0];
  for (const e of events) {
    if (e.type !== 'plan_extended') continue;
    for (const s of e.steps) {
      if (held.has(s.step) || !s.tool) continue;
      const why = [...new Set(e.because.filter((b) => b.adds === s.step).map((b) => b.why))].join('; ');
      notes.push(`I looked further at ${words(s.tool, s.args)} because ${why}, but ${inWords(failure(s.step))}.`);
    }
  }
  const created = [...events].reverse().find((e): e is Extract<LedgerEvent, { type: 'plan_created' }> => e.type === 'plan_created');
  const extended = new Set(events.flatMap((e) => (e.type === 'plan_extended' ? [e.part] : [])));
  for (const part of partViews(events)) {
    const rec = created?.parts?.[part.index ?? 0] as { ask?: { kind?: string } } | undefined; // index null: the goal's one part, if recorded
    if (rec?.ask?.kind !== 'why' || extended.has(part.index)) continue;
    const tools = new Set(created?.steps.filter((s) => part.planned.includes(s.step)).map((s) => s.tool));
    const whys = [...new Set(playbooks.filter((p) => part.playbooks.includes(p.id) && p.steps.every((s) => tools.has(s.tool))).flatMap((p) => (p.followups ?? []).map((r) => r.why)))];
    if (whys.length) notes.push(`Nothing I read called for a closer look (I look further when ${whys.join(', or when ')}).`);
  }
  return notes;
}
