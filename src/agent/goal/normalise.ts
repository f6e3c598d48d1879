/**
 * Reading a text the way retrieval and playbook matching compare it: words
 * spelled right, phrases of the lexicon recognised, the words that carry no
 * topic dropped — the same for an owner's goal and for a tool's or a
 * playbook's own words, so the two meet however the owner put it.
 *
 * 1. Words: lower-cased runs of letters and digits ("pihole-ftl", "wlan0"
 *    and "what's" stay whole; "_" splits, so `capture_df` is two words).
 * 2. Spelling: a word the vocabulary (the words the tools, playbooks and
 *    lexicon know) does not hold is replaced by the one vocabulary word
 *    within a small edit distance — Damerau–Levenshtein, 1 for words of 4 to
 *    7 letters, 2 from 8 — when exactly one such word is nearest; a run of
 *    three or more equal letters ("slooow") is tried shortened first. Words
 *    under 4 letters, words with digits and stop words are never changed,
 *    and neither is a word whose stem the vocabulary knows.
 *    A word still unknown may be an abbreviation of one vocabulary word: a
 *    beginning of it of 4 letters or more ("perm", "addr"), or its first
 *    letter and then consonants only, in its order ("svc", "pkgs", "swp",
 *    "addrs") — again only when exactly one word (by stem) fits.
 * 3. Phrases: the longest lexicon entry starting at each word wins. A
 *    filler phrase ("what's going on") is dropped whole; a group's word
 *    adds the group's first word ("laggy" adds "slow") beside its own, and
 *    a group's phrase of several words counts as the first word only
 *    ("logged in" means "login", not "log").
 * 4. Terms: every word left that is not a stop word, stemmed (terms.ts), plus
 *    the group words; the stop list is short and holds no content word
 *    ("own", "up" and "down" are content here).
 *
 * Pure and deterministic: the same text, vocabulary and lexicon give the
 * same reading.
 */
import { stem } from '../../memory/terms.js';
import { phraseKey, type Lexicon } from './lexicon.js';

// Words that carry no topic. Unlike terms.ts's list it keeps "own", "up", "down", "off", "out",
// "over" (a service is up, a file is owned), and adds the owner's shorthand and the machine's names.
export const STOP = new Set([
  'a', 'an', 'the', 'and', 'or', 'of', 'to', 'in', 'on', 'for', 'with', 'at', 'by', 'from', 'as', 'into', 'about', 'than', 'then',
  'is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'it', 'its', "it's", 'this', 'that', 'these', 'those', 'there', 'here',
  'i', 'me', 'my', 'we', 'our', 'you', 'your', 'u', 'ur', 'he', 'she', 'they', 'them', 'their', 'us', 'im', "i'm", "i've", 'ive',
  'do', 'does', 'did', 'doing', 'can', 'could', 'should', 'would', 'will', 'shall', 'may', 'might', 'must', "can't", 'cant', "don't", 'dont',
  "doesn't", 'doesnt', "isn't", 'isnt', "won't", 'wont', "didn't", 'didnt',
  'what', "what's", 'whats', 'which', 'who', "who's", 'whom', 'how', "how's", 'hows', 'why', 'when', 'where', 'whether',
  'has', 'have', 'had', 'having', 'so', 'too', 'very', 'just', 'also', 'any', 'anything', 'some', 'something', 'all', 'each', 'every', 'everything',
  'please', 'pls', 'plz', 'thanks', 'tell', 'give', 'let', 'know', 'want', 'need', 'see', 'look', 'like', 'thing', 'things', 'stuff',
  'if', 'but', 'not', 'no', 'yes', 'ok', 'okay', 'hey', 'hi', 'again', 'only', 'same', 'other', 'such', 'still', 'now', 'right', 'currently',
  'pi', 'raspberry', 'rpi', 'box', 'machine', 'computer', 'device', 'system', 'server', 'host', 'one', 'lot', 'much', 'many', 'bit',
  'going', 'get', 'got', 'gets', 'getting', 'seem', 'seems', 'feel', 'feels', 'really', 'actually', 'kind', 'sort', 'maybe',
  // time words: the window is an entity (entities.ts), never a topic to rank tools by
  'since', 'after', 'before', 'ago', 'past', 'last', 'previous', 'recent', 'recently', 'lately', 'latest', 'half', 'quarter',
  'second', 'seconds', 'sec', 'secs', 'minute', 'minutes', 'min', 'mins', 'hour', 'hours', 'hr', 'hrs', 'day', 'days', 'week', 'weeks',
  'today', 'yesterday', 'tonight', 'morning', 'afternoon', 'evening', 'night', 'overnight',
]);

/** Whether a word carries a topic: neither a stop word (this list or the lexicon's) nor a bare number. */
export function isContentWord(w: string, lexicon: Lexicon): boolean {
  return !STOP.has(w) && !lexicon.stop.has(w) && !/^\d+$/.test(w);
}

/** Damerau–Levenshtein distance (adjacent swaps count 1), or max + 1 once it must exceed `max`. */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, rows[i - 2]![j - 2]! + 1);
      row.push(v);
      best = Math.min(best, v);
    }
    if (best > max) return max + 1;
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** Whether b is a with two adjacent letters swapped. */
function isSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const diff = [...a].map((c, i) => (c === b[i] ? -1 : i)).filter((i) => i >= 0);
  return diff.length === 2 && diff[1] === diff[0]! + 1 && a[diff[0]!] === b[diff[1]!] && a[diff[1]!] === b[diff[0]!];
}

/** The words a text is made of: lower-case, "_" and punctuation split, hyphens, digits and apostrophes kept inside a word. */
export function tokens(text: string): string[] {
  return (text.replace(/_/g, ' ').toLowerCase().replace(/[\u2018\u2019]/g, "'").match(/[\p{L}\p{N}](?:[\p{L}\p{N}'-]*[\p{L}\p{N}])?/gu) ?? []);
}

/** The words spelling is checked against, and their stems. */
export interface Vocabulary {
  words: ReadonlySet<string>;
  stems: ReadonlySet<string>;
  /** words by length, for the near-miss search */
  byLength: ReadonlyMap<number, readonly string[]>;
}

/** The vocabulary of some texts (tool and playbook words) and a lexicon. */
export function vocabularyOf(texts: readonly string[], lexicon: Lexicon): Vocabulary {
  const words = new Set<string>();
  const add = (w: string) => { if (w.length >= 3 && !/\d/.test(w) && !STOP.has(w)) words.add(w); };
  for (const t of texts) for (const w of tokens(t)) add(w);
  for (const e of [...lexicon.means.keys(), ...lexicon.acts.keys()]) for (const w of e.split(' ')) add(w);
  const byLength = new Map<number, string[]>();
  for (const w of [...words].sort()) byLength.set(w.length, [...(byLength.get(w.length) ?? []), w]);
  return { words, stems: new Set([...words].map(stem)), byLength };
}

/** The vocabulary word a misspelt word most likely is, or the word itself (see the header for the rules). */
export function correct(word: string, vocab: Vocabulary, lexicon?: Lexicon): string {
  if (word.length < 4 || /[\d'-]/.test(word) || STOP.has(word) || lexicon?.stop.has(word)) return word;
  if (vocab.words.has(word) || vocab.stems.has(stem(word)) || lexicon?.means.has(stem(word)) || lexicon?.acts.has(stem(word))) return word;
  if (/(.)\1\1/.test(word)) {
    for (const short of [word.replace(/(.)\1{2,}/g, '$1'), word.replace(/(.)\1{2,}/g, '$1$1')]) {
      if (vocab.words.has(short) || vocab.stems.has(stem(short))) return short;
    }
  }
  const max = word.length >= 8 ? 2 : 1;
  let best: string[] = [];
  let bestD = max + 1;
  for (let len = Math.max(4, word.length - max); len <= word.length + max; len++) {
    for (const cand of vocab.byLength.get(len) ?? []) {
      // a typo keeps the first letter; in a short word only a letter left out, added or swapped
      // is a typo ("spce", "dsik"), a changed letter is another word ("past", "last")
      if (cand[0] !== word[0]) continue;
      if (word.length <= 5 && len === word.length && !isSwap(word, cand)) continue;
      const d = editDistance(word, cand, max);
      if (d < bestD) { bestD = d; best = [cand]; } else if (d === bestD && d <= max) best.push(cand);
    }
  }
  if (best.length === 0) return word;
  // two equally near words are a guess, unless they are forms of one word
  const stems = new Set(best.map(stem));
  return stems.size === 1 ? best[0]! : word;
}

/** Whether `short` is `long` with letters left out, in order. */
function subsequence(short: string, long: string): boolean {
  let i = 0;
  for (const c of long) if (c === short[i]) i++;
  return i === short.length;
}

/** The vocabulary word an abbreviation stands for (see the header), or the word itself. */
export function expand(word: string, vocab: Vocabulary, lexicon?: Lexicon): string {
  if (!/^[a-z]{3,6}$/.test(word) || STOP.has(word) || lexicon?.stop.has(word) || vocab.words.has(word) || vocab.stems.has(stem(word))) return word;
  const bare = word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word;
  const skeleton = !/[aeiouy]/.test(bare.slice(1));
  const fits: string[] = [];
  for (const [len, ws] of vocab.byLength) {
    if (len < word.length + 2) continue;
    for (const v of ws) {
      if (v[0] !== word[0]) continue;
      if ((bare.length >= 4 && v.startsWith(bare)) || (skeleton && subsequence(bare, v))) fits.push(v);
    }
  }
  const stems = new Set(fits.map(stem));
  return stems.size === 1 ? fits.sort((a, b) => a.length - b.length)[0]! : word;
}

/** Whether the vocabulary knows a word, or the word a comparative or superlative is made from ("fullest", "hotter", "busiest"). */
function knownForm(w: string, vocab: Vocabulary): boolean {
  return vocab.words.has(w) || vocab.stems.has(stem(w)) || comparativeOf(w, vocab) !== null;
}

/** The known word a comparative or superlative is made from ("bigger" → "big", "busiest" → "busy"), or null. */
function comparativeOf(w: string, vocab: Vocabulary): string | null {
  const m = /^(.{3,}?)(?:i?est|i?er)$/.exec(w);
  if (!m) return null;
  const base = w.endsWith('iest') || w.endsWith('ier') ? `${m[1]}y` : m[1]!;
  // "hottest" → "hot": a doubled last letter is the comparative's
  return [base, base.replace(/(.)\1$/, '$1')].find((b) => vocab.words.has(b) || vocab.stems.has(stem(b))) ?? null;
}

export interface Reading {
  /** the words after spelling fixes, fillers dropped, in order */
  words: string[];
  /** what retrieval compares: stemmed content words plus the lexicon group words, in order, with repeats */
  terms: string[];
  /** the lexicon groups the text touches (their first words) */
  groups: string[];
  /** spelling fixes made */
  fixes: { from: string; to: string }[];
  /** content words (not stop words) the vocabulary and lexicon do not know */
  unknown: string[];
}

/** Read a text (a goal, or a tool's or playbook's own words) through the lexicon and, when given, the vocabulary. */
export function read(text: string, lexicon: Lexicon, vocab?: Vocabulary): Reading {
  const raw = tokens(text);
  // a word typed in capitals ("SMART", "NAS") is a name or an acronym, never a misspelling
  const caps = new Set((text.match(/\b[A-Z][A-Z0-9]+\b/g) ?? []).map((w) => w.toLowerCase()));
  const fixes: Reading['fixes'] = [];
  const ws = raw.map((w) => {
    let c = vocab && !caps.has(w) ? correct(w, vocab, lexicon) : w;
    if (vocab && c === w && !caps.has(w)) c = expand(w, vocab, lexicon);
    if (c !== w) fixes.push({ from: w, to: c });
    return c;
  });
  const out: Reading = { words: [], terms: [], groups: [], fixes, unknown: [] };
  const isStop = (w: string) => STOP.has(w) || lexicon.stop.has(w);
  for (let i = 0; i < ws.length;) {
    let took = 0;
    for (let n = Math.min(lexicon.longest, ws.length - i); n >= 1 && took === 0; n--) {
      const phrase = phraseKey(ws.slice(i, i + n).join(' '));
      if (lexicon.fillers.has(phrase)) { took = n; break; }
      const head = lexicon.means.get(phrase);
      if (head !== undefined) {
        // a phrase counts as what it means ("logged in" is not about logs); a single word as itself too
        for (const w of ws.slice(i, i + n)) {
          out.words.push(w);
          if (n === 1 && !isStop(w)) out.terms.push(stem(w));
        }
        out.terms.push(stem(head));
        if (!out.groups.includes(head)) out.groups.push(head);
        took = n;
      }
    }
    // "bigger", "hottest": what the word they are made from means
    const base = took === 0 && vocab && !lexicon.means.has(phraseKey(ws[i]!)) ? comparativeOf(ws[i]!, vocab) : null;
    const head = base ? lexicon.means.get(phraseKey(base)) : undefined;
    if (took === 0 && head !== undefined) {
      out.words.push(ws[i]!);
      out.terms.push(stem(ws[i]!), stem(head));
      if (!out.groups.includes(head)) out.groups.push(head);
      took = 1;
    }
    if (took === 0) {
      const w = ws[i]!;
      out.words.push(w);
      if (!isStop(w) && (w.length > 1 || /\d/.test(w))) {
        out.terms.push(stem(w));
        if (vocab && !/\d/.test(w) && !knownForm(w, vocab) && !lexicon.acts.has(stem(w))) out.unknown.push(w);
      }
      took = 1;
    }
    i += took;
  }
  return out;
}
