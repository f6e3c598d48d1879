/**
 * A selection said (src/agent/answer/select.ts makes it): "There are 143
 * processes.", "The failed units: "a", "b".", ""python3" is not among the 20
 * processes read; …", the lines themselves. Every name and line came from a
 * fact (T1), so each appears only quoted; a list cut short is said to be cut
 * (a lower bound, or "not among those read"), never "none". The lines of a
 * show ask are each a sentence of their own, so each names its source.
 */
import type { Selection } from '../../src/agent/answer/select.js';
import { count, int, oneOf, quote, quotedList, str } from './words.js';

const LEVELS = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;

/** How long one shown line may be, in characters, before it is cut with "…". */
export const LINE_MAX = 200;

/** The sentences of a selection, in order. */
export function selectionSentences(s: Selection): string[] {
  // the narrowing is the owner's words and the schema's keys (never a fact's text), said as they are
  const where = s.where?.length ? ` (${s.where.join(', ')})` : '';
  const [one, many] = s.label.map((l) => `${l}${where}`) as [string, string];
  const n = typeof s.result === 'number' ? s.result : s.listed;
  // none of a narrowed list is said of the list, never as "there are no filesystems" (which reads as none at all)
  const noneOf = (): string => `None of the ${count(s.listed, s.label[0], s.label[1])}${s.whole ? '' : ' read'} ${s.listed === 1 ? 'has' : 'have'} ${s.where!.join(', ')}.`;
  switch (s.kind) {
    case 'count':
      if (s.total === null && !s.whole) return [`At least ${count(n, one, many)}: the read keeps only ${s.listed}, so there may be more.`];
      {
        const [o, m] = s.total !== null && s.totalLabel ? s.totalLabel : [one, many];
        if (n === 0 && where && s.listed > 0) return [noneOf()];
        return [n === 0 ? `There are no ${m}.` : `There ${n === 1 ? 'is' : 'are'} ${count(n, o, m)}.`];
      }
    case 'list': {
      // lines and failure lines are read as lines, whole, whether asked to list or to show them
      if (s.noun === 'line' || s.noun === 'error') return selectionSentences({ ...s, kind: 'show' });
      const names = s.result as string[];
      const [, plain] = s.label;
      if (names.length === 0 && where && s.listed > 0) return [noneOf()];
      if (names.length === 0) return [s.whole ? `There are no ${many}.` : `None of the ${count(s.listed, s.label[0], plain)} read is one of the ${many}.`];
      if (where && !s.whole) return [`Of the ${count(s.listed, s.label[0], plain)} read, ${names.length} ${names.length === 1 ? 'has' : 'have'} ${s.where!.join(', ')}: ${quotedList(names, 10)}.`];
      const cut = s.total !== null && s.total > s.listed ? `The first ${s.listed} of ${count(s.total, one, many)}` : `The ${many}`;
      return [`${cut}: ${quotedList(names, 10)}.`];
    }
    case 'member': {
      const name = quote(s.name ?? '?');
      if (s.result === true) {
        const found = s.items.slice(0, 3).map((i) => itemPhrase(i)).filter((x) => x.length > 0);
        return [`${name} is among the ${many}${s.whole ? '' : ' read'}${found.length ? `: ${found.join(', ')}` : ''}.`];
      }
      if (s.whole) return [`${name} is not among the ${count(s.total ?? s.listed, one, many)}.`];
      return [`${name} is not among the ${count(s.listed, one, many)} read; the read keeps only those, so it may still be there.`];
    }
    case 'show': {
      if (s.items.length === 0) return [s.whole ? `There are no ${many} in what was read.` : `No ${many} were returned.`];
      // the cut is said as first or last N of how many were read; other narrowings stay beside the noun
      const shown = s.items.length;
      const cut = s.where?.find((w) => /^(?:first|last) \d+$/.test(w));
      const rest = (s.where ?? []).filter((w) => w !== cut);
      const [o, m] = s.label.map((l) => `${l}${rest.length ? ` (${rest.join(', ')})` : ''}`) as [string, string];
      const read = s.total !== null && s.total > shown ? ` of ${s.total}` : '';
      // the first N of a read that kept only the last lines are the first of those kept, not of all
      const head = cut?.startsWith('first')
        ? `The first ${count(shown, o, m)}${s.total !== null && s.total > s.listed ? ` of the last ${s.listed} read` : read}, oldest first:`
        : `The last ${count(shown, o, m)}${read}, oldest first:`;
      return [head, ...s.items.map((i) => linePhrase(i))];
    }
    default:
      return [];
  }
}

/** A found item: its name quoted, with its pid when it has one. */
function itemPhrase(i: Record<string, unknown>): string {
  const name = str(i.command) ?? str(i.unit) ?? str(i.name) ?? str(i.mount) ?? str(i.file) ?? str(i.path) ?? str(i.text);
  const pid = int(i.pid);
  return name === null ? '' : `${quote(name)}${pid !== null ? ` (pid ${pid})` : ''}`;
}

/** One line as it was written: its time and source quoted, then its text quoted (escaped, one line, cut long). */
function linePhrase(i: Record<string, unknown>): string {
  const at = str(i.at);
  const source = str(i.source);
  const level = oneOf(i.level, LEVELS);
  const text = str(i.text) ?? str(i.line) ?? str(i.message) ?? '';
  return `${at !== null ? `${quote(at)} ` : ''}${source !== null ? `${quote(source)}` : ''}${level !== null ? ` [${level}]` : ''}${at !== null || source !== null || level !== null ? ': ' : ''}${quote(text, LINE_MAX)}`;
}
