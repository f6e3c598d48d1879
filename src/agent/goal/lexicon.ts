/**
 * The admin's lexicon (`manifests/lexicon/*.json`, lexicon@1): the words Pi
 * owners use for what the tools are about, kept as data so an operator can
 * teach the agent a word without touching code.
 *
 * - `groups`: each list's first word is what the others mean ("ram" and
 *   "mem" mean "memory"). A goal, every tool and every playbook are read
 *   through the same groups, so they meet on the first word.
 * - `acts`: each list's first word names a kind of change ("delete"), the
 *   rest are the verbs that ask for it ("prune", "vacuum", "clean up"). A
 *   goal that opens with one asks to change something (action.ts).
 * - `fillers`: phrases that carry no topic ("what's going on", "for me").
 * - `stop`: more words that carry no topic.
 * - `self`: the words for the machine itself ("pi", "box") and the group a
 *   question about nothing but the machine asks after ("health").
 * - `general`: words that ask about the world rather than this machine —
 *   what something is or means, who made it, what to buy ("explain",
 *   "invented", "recommend"): such a question is declined, never answered
 *   with this machine's figures.
 *
 * Several files merge in name order (a root can add `manifests/lexicon/
 * local.json` beside the shipped `admin.json`). Entries are lower-case and may
 * be phrases of several words. Parsing is strict like every manifest: an
 * unknown key or a malformed entry is an error naming the file and the fix.
 * Pure: the caller reads the files.
 */
import { z } from 'zod';
import { stem } from '../../memory/terms.js';

const entry = z.string().min(1).max(40).regex(/^[a-z0-9][a-z0-9 '._-]*$/, 'lower-case words, digits, spaces, "\'", ".", "_" or "-"');
export const lexiconSchema = z.strictObject({
  manifest: z.literal('lexicon@1'),
  description: z.string().max(400).optional(),
  groups: z.array(z.array(entry).min(2)).default([]),
  acts: z.array(z.array(entry).min(2)).default([]),
  fillers: z.array(entry).default([]),
  stop: z.array(entry).default([]),
  /** the words that name the machine itself; a question about nothing else ("how's my pi doing") asks after `means` */
  self: z.strictObject({ means: entry, words: z.array(entry).min(1) }).optional(),
  /** words that ask about the world in general, not about this machine */
  general: z.array(entry).default([]),
});
export type LexiconDoc = z.infer<typeof lexiconSchema>;

/**
 * The key a word or phrase is looked up by: a single word by its stem, so "crashes" finds "crash"
 * and "upgraded" finds "upgrade"; a phrase by its words as written ("logged in" is not "log in").
 */
export function phraseKey(phrase: string): string {
  const ws = phrase.toLowerCase().split(/\s+/).filter((w) => w.length > 0);
  return ws.length === 1 ? stem(ws[0]!) : ws.join(' ');
}

/** A lexicon ready to read goals with: phrase keys (phraseKey) → what they mean, act verbs, fillers, stop words. */
export interface Lexicon {
  /** every word or phrase of a group (by phraseKey) → the group's first word */
  means: ReadonlyMap<string, string>;
  /** every act verb or phrase (by phraseKey) → the act's name */
  acts: ReadonlyMap<string, string>;
  /** the act verbs exactly as listed, lower-case: a request opens with one of these forms ("update", never "updates") */
  actForms: ReadonlySet<string>;
  fillers: ReadonlySet<string>;
  stop: ReadonlySet<string>;
  /** the words for the machine itself, and what a question about only them means (the last file's wins) */
  self: { means: string; words: ReadonlySet<string> } | null;
  /** words and phrases (by phraseKey) that ask about the world in general, not this machine */
  general: ReadonlySet<string>;
  /** the longest entry, in words (phrase lookups look this far ahead) */
  longest: number;
  /** the merged documents, for the composition */
  documents: Record<string, LexiconDoc>;
}

export class LexiconError extends Error {
  override name = 'LexiconError';
}

/** Check one lexicon document; an error names the file, the place and the fix. */
export function parseLexicon(json: unknown, file: string): LexiconDoc {
  const r = lexiconSchema.safeParse(json);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  const at = i.path.length ? ` at ${i.path.join('.')}` : '';
  const fix = i.code === 'unrecognized_keys' ? 'remove the key: lexicon@1 knows manifest, description, groups, acts, fillers, stop, self, general' : 'see docs/manifests.md, "Lexicon", for the lexicon@1 fields';
  throw new LexiconError(`${file}${at}: ${i.message}; ${fix}`);
}

/** Merge lexicon documents (by file name, in order) into one lexicon. A word in two groups keeps its first. */
export function buildLexicon(docs: Readonly<Record<string, LexiconDoc>>): Lexicon {
  const means = new Map<string, string>();
  const acts = new Map<string, string>();
  const actForms = new Set<string>();
  const fillers = new Set<string>();
  const stop = new Set<string>();
  const general = new Set<string>();
  let longest = 1;
  let self: Lexicon['self'] = null;
  const note = (w: string) => { longest = Math.max(longest, w.split(' ').length); };
  for (const name of Object.keys(docs).sort()) {
    const d = docs[name]!;
    for (const [head, ...rest] of d.groups) {
      for (const w of [head!, ...rest]) { const k = phraseKey(w); if (!means.has(k)) means.set(k, head!); note(w); }
    }
    for (const [act, ...verbs] of d.acts) {
      for (const v of verbs) { const k = phraseKey(v); if (!acts.has(k)) acts.set(k, act!); actForms.add(v.toLowerCase()); note(v); }
    }
    for (const f of d.fillers) { fillers.add(phraseKey(f)); note(f); }
    for (const s of d.stop) stop.add(s);
    for (const g of d.general) { general.add(phraseKey(g)); note(g); }
    if (d.self) self = { means: d.self.means, words: new Set(d.self.words) };
  }
  return { means, acts, actForms, fillers, stop, self, general, longest, documents: { ...docs } };
}

/** An empty lexicon: goals are read by spelling and stems alone. */
export const EMPTY_LEXICON: Lexicon = buildLexicon({});
