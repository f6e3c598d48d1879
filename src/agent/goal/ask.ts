/**
 * What a part asks of the facts (seam §1, `ask`): the state of its subject
 * (the default), a list ("which services failed", "list the interfaces"), a
 * count ("how many updates"), whether a named thing is among them ("is
 * python3 in the process list", "is wlan0 one of the interfaces"), the
 * lines themselves ("show the lines ssh logged", "tail /var/log/auth.log"),
 * or why. The planner plans the tools whose facts can hold the answer; the
 * renderer selects it from them.
 *
 * `noun` is the kind of thing asked for, from the closed list of a part's
 * record (src/base/goal-part.ts); the owner's words for each are below, and
 * a word outside them gives no noun, never a guess. For a
 * membership the named thing is the ask's `name`, and what the part is
 * about is the list it is looked for in ("is bluetooth.service among the
 * failed units" is about the failed units), so the name is not read as the
 * part's unit or path.
 *
 * Pure: the same text gives the same ask.
 */

import { ASK_KINDS, ASK_NOUNS } from '../../base/goal-part.js';

export { ASK_KINDS, ASK_NOUNS };
export type AskKind = (typeof ASK_KINDS)[number];
/** The kinds of things a selection can ask for (seam §1); the renderer maps each to a list field of the facts. */
export type AskNoun = (typeof ASK_NOUNS)[number];

export interface Ask {
  kind: AskKind;
  /** the named thing of a membership ("python3", "bluetooth.service") */
  name?: string;
  noun?: AskNoun;
}

// the owner's words for each noun (singular; a plural "s"/"es" is read too)
const NOUN_WORDS: Record<AskNoun, readonly string[]> = {
  process: ['process', 'program', 'app', 'task', 'pid'],
  unit: ['service', 'unit', 'daemon', 'svc', 'timer', 'socket'],
  package: ['package', 'pkg', 'update', 'upgrade'],
  file: ['file', 'log file'],
  folder: ['folder', 'directory', 'dir'],
  filesystem: ['filesystem', 'file system', 'partition', 'mount', 'mountpoint', 'mount point', 'disk', 'drive', 'volume'],
  interface: ['interface', 'iface', 'nic', 'adapter', 'ip address', 'address'],
  line: ['line', 'log line', 'message', 'entry', 'entries'],
  error: ['error', 'warning', 'failure'],
  boot: ['boot', 'reboot'],
};

const plural = (w: string) => (w.endsWith('y') ? `${w.slice(0, -1)}(?:y|ies)` : w.endsWith('s') ? `${w}(?:es)?` : `${w}(?:e?s)?`);

// one pattern per noun word, built once
const NOUN_PATTERNS: { noun: AskNoun; re: RegExp }[] = ASK_NOUNS.flatMap((noun) => NOUN_WORDS[noun].map((w) => ({ noun, re: new RegExp(`\\b${w.split(' ').map(plural).join('\\s+')}\\b`, 'i') })));
const LIST_AFTER_WHICH = Object.fromEntries(ASK_NOUNS.map((noun) => [noun, new RegExp(`^(?:which|what)\\s+(?:of\\s+the\\s+)?(?:[a-z0-9-]+\\s+){0,2}?(?:${NOUN_WORDS[noun].map(plural).join('|')})`, 'i')])) as Record<AskNoun, RegExp>;

/** The noun the words name (the first one in the text, by position), or undefined. */
export function nounIn(text: string): AskNoun | undefined {
  let best: { at: number; noun: AskNoun } | undefined;
  for (const { noun, re } of NOUN_PATTERNS) {
    const m = re.exec(text);
    if (m && (!best || m.index < best.at)) best = { at: m.index, noun };
  }
  // "the top memory users", "cpu hogs": the processes
  if (/\b(?:memory|ram|cpu|top)\s+(?:users|hogs|consumers|eaters)\b/i.test(text)) return 'process';
  return best?.noun;
}

const NAME = String.raw`([A-Za-z0-9~./@_:+-]*[A-Za-z0-9_])`;
// "is NAME among / in / one of / part of / listed in / on the list of …"
const MEMBER = new RegExp(String.raw`^(?:is|are|was|does|do)\s+(?:the\s+)?(?:process\s+|service\s+|unit\s+|package\s+|interface\s+)?${NAME}\s+(?:(?:still\s+)?(?:among|amongst|one\s+of|part\s+of|listed\s+(?:in|among|on)|included\s+in|in|on|inside|within|under)\s+(?:the\s+)?(?:list\s+of\s+(?:the\s+)?)?)(.+)$`, 'i');
// "does the list of failed units include NAME"
const INCLUDES = new RegExp(String.raw`^(?:does|do)\s+(?:the\s+)?(.+?)\s+(?:include|contain|list|show|have)\s+${NAME}\s*[?.!]*$`, 'i');

/** The list a membership looks in must name a kind of thing or a list: "the failed units", "the process list". */
const LISTISH = /\b(?:list|lists|top|among)\b/i;

/**
 * What a part asks of the facts. `text` is the part as typed; `named` the unit or path it names,
 * which a membership takes as its name.
 */
export function askIn(text: string, named: { unit: string | null; path: string | null } = { unit: null, path: null }): Ask & { list?: string } {
  const t = text.trim().replace(/[?.!]+$/, '');
  let m = MEMBER.exec(t);
  if (m && (nounIn(m[2]!) || LISTISH.test(m[2]!) || /\b(?:among|one\s+of|part\s+of|listed|included)\b/i.test(t))) {
    // "is my disk in the list" has no name: a possessive or a topic word is not one
    const name = m[1]!;
    if (!/^(?:it|this|that|my|the|a|an|there|he|she|they)$/i.test(name)) {
      const noun = nounIn(m[2]!);
      return { kind: 'member', name: named.unit && named.unit.replace(/\.service$/, '') === name ? named.unit : name, ...(noun ? { noun } : {}), list: m[2]! };
    }
  }
  m = INCLUDES.exec(t);
  if (m && nounIn(m[1]!)) return { kind: 'member', name: m[2]!, noun: nounIn(m[1]!)!, list: m[1]! };
  const noun = nounIn(t);
  const withNoun = (kind: AskKind): Ask => ({ kind, ...(noun ? { noun } : {}) });
  if (/^(?:show|print|tail|cat|display|paste|dump|give\s+me|let\s+me\s+see)\b/i.test(t) || /\b(?:the\s+)?(?:last|first|latest)\s+(?:\d+\s+)?lines\b|\blines\b/i.test(t)) {
    if (/\blines?\b|\blog\b|\blogs\b|\bmessages\b|\bjournal\b|\boutput\b|^(?:tail|cat)\b/i.test(t)) return { kind: 'show', noun: 'line' };
    return withNoun(noun ? 'list' : 'state');
  }
  // "which services failed, and why": a list asked with its causes is a why (the list is its symptom)
  if (/(?:,|\band)\s*why$/i.test(t)) return { kind: 'why' };
  if (/\bhow\s+many\b|\bnumber\s+of\b|\bcount\s+(?:of|the)\b/i.test(t)) return withNoun('count');
  if (noun && LIST_AFTER_WHICH[noun].test(t)) return withNoun('list');
  if (/^(?:list|enumerate)\b|^(?:what|which)\s+are\s+(?:all\s+)?the\b/i.test(t) && noun) return withNoun('list');
  if (/^why\b|\bhow\s+come\b|\bwhat\s+(?:caused|causes|made)\b|,\s*why$/i.test(t)) return { kind: 'why' };
  return { kind: 'state' };
}
