/**
 * The plain words for a part of a goal nothing here serves (design §12):
 * a request to change something no tool changes ("I can't restart nginx:
 * no tool on this machine does that."), with the request that would work
 * when a tool makes that kind of change to something else; a question about
 * something nothing here looks at; a question about the world in general.
 * A person reads these; the technical reason stays in the ledger.
 */
import type { GoalReader } from './goal/reader.js';
import type { GoalPart } from './goal/index.js';
import type { Playbook } from './playbooks.js';

/**
 * The plain sentence for a request to act that no tool here can carry out; when a tool makes that
 * kind of change to something else, the request that would work (`works`).
 */
export function cannotAct(a: NonNullable<GoalPart['action']>, works?: string | null): string {
  return `I can't ${a.verb}${a.object ? ` ${a.object}` : ''}: no tool on this machine does that.${works ? ` A change I can make, once you approve it: "${works}".` : ''}`;
}

/** The request a destructive tool's playbook would serve, with its count to keep ("prune the log archive, keep the 3 newest"). */
export function workingRequest(reader: GoalReader, part: GoalPart, playbooks: readonly Playbook[]): string | null {
  const w = reader.workingRequest(part);
  const pb = w && playbooks.find((p) => p.steps.some((st) => st.tool === w.tool));
  if (!w || !pb) return null;
  const keep = Object.values(pb.slots).find((sl) => sl.extractor === 'keep');
  return keep ? `${w.request}, keep the ${keep.default ?? 3} newest` : w.request;
}

/** The plain sentence for a question nothing here answers. */
export function cannotCheck(part: GoalPart): string {
  const unknown = (part.focus?.unknown.length ? part.focus.unknown : part.reading.unknown).slice(0, 3);
  return `I could not check "${part.text}": nothing on this machine looks at ${unknown.length ? unknown.join(', ').replace(/, ([^,]*)$/, ' or $1') : 'that'}.`;
}

/** The plain sentence for a question about the world in general. */
export function cannotAnswerGeneral(part: GoalPart): string {
  return `I could not check "${part.text}": it asks about ${part.general!.startsWith('a') || part.general!.includes(' a ') ? 'a kind of machine' : 'something'} in general, and I only look at this machine.`;
}

/** The plain sentence for a question no planner here could plan. */
export function cannotCheckText(text: string): string {
  return `I could not check "${text}": no planner here could turn it into checks.`;
}
