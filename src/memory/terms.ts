/**
 * Terms: the words retrieval compares, made the same way for a goal and for a
 * tool, so "Disks filling up?" and `disk_usage` ("filled") meet on `disk`
 * and `fill`.
 *
 * A text is split into words (identifiers on `_ . - /` and camelCase, digits
 * kept as their own words), lower-cased, stop words dropped, and each word
 * stemmed by a few English suffix rules (plurals, -ing, -ed, -able, a final
 * -e). The stemmer is deliberately crude: it only has to map the forms of one
 * word to the same string, never to a real word. It knows no synonyms — a
 * tool's `when` line is where its author names the words people use.
 *
 * It lives in memory, the lower of its two users: the trajectory table
 * (trajectory.ts) keys past goals by these terms, and the agent's retrieval
 * compares goals with tools by them.
 */

// Words that carry no topic in an admin's question. Kept short on purpose:
// BM25's idf already discounts words that every tool shares.
const STOP = new Set([
  'a', 'an', 'the', 'and', 'or', 'of', 'to', 'in', 'on', 'for', 'with', 'at', 'by', 'from', 'as', 'into', 'about',
  'is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'it', 'its', 'this', 'that', 'these', 'those', 'there', 'here',
  'i', 'me', 'my', 'we', 'our', 'you', 'your', 'he', 'she', 'they', 'them', 'their', 'us',
  'do', 'does', 'did', 'doing', 'can', 'could', 'should', 'would', 'will', 'shall', 'may', 'might', 'must',
  'what', 'which', 'who', 'whom', 'how', 'why', 'when', 'where', 'whether',
  'has', 'have', 'had', 'having', 'so', 'than', 'then', 'too', 'very', 'just', 'also', 'any', 'some', 'all', 'each', 'every',
  'please', 'show', 'tell', 'give', 'let', 'know', 'want', 'need', 'see', 'look', 'like', 'something', 'anything', 'thing', 'things',
  'if', 'but', 'not', 'no', 'yes', 'up', 'out', 'off', 'over', 'under', 'again', 'only', 'own', 'same', 'other', 'such',
]);

/** Undo a doubled final consonant left by -ing/-ed ("runn" → "run"), but keep ll, ss, zz ("fill", "pass"). */
function undouble(w: string): string {
  const n = w.length;
  if (n >= 3 && w[n - 1] === w[n - 2] && !'lsz'.includes(w[n - 1]!) && !'aeiou'.includes(w[n - 1]!)) return w.slice(0, -1);
  return w;
}

const VOWEL = /[aeiouy]/;

/** A crude stem: the same string for the forms of one word. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 2) return w;
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w) && w.length > 3) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length >= 6 && VOWEL.test(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length >= 4 && VOWEL.test(w.slice(0, -2))) w = undouble(w.slice(0, -2));
  if (/(?:able|ible)$/.test(w) && w.length >= 8) w = w.slice(0, -4);
  if (w.endsWith('e') && w.length >= 3) w = w.slice(0, -1);
  return w;
}

/** Split a text into raw words: camelCase and identifier separators split, digit runs kept whole. */
export function words(text: string): string[] {
  const spaced = text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)|(\d)([A-Za-z])/g, (_m, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`));
  return spaced.toLowerCase().match(/[\p{L}\p{N}']+/gu)?.map((w) => w.replace(/^'+|'+$/g, '')).filter((w) => w.length > 0) ?? [];
}

/** The terms of a text, in order, with repeats: words minus stop words, stemmed. Single letters are dropped. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (w.length < 2 && !/\d/.test(w)) continue;
    if (STOP.has(w)) continue;
    out.push(stem(w));
  }
  return out;
}
