/**
 * Understanding a goal, once, before it is planned (design §12): spelling
 * and the owner's words normalised (normalise.ts, through the lexicon),
 * split into the questions it holds (parts.ts), each part's entities and
 * time window read (entities.ts) and a request to act recognised
 * (action.ts). Retrieval, playbook matching, planning and the answer all
 * read this one result, so a goal is never understood two ways.
 *
 * A part that names no unit or path of its own but points back to one with
 * a pronoun ("is mosquitto running and what did it log") takes the nearest
 * earlier part's; nothing else crosses between parts, so the window of one
 * question never narrows another.
 *
 * Pure and deterministic: the same goal and context give the same result.
 */
import { phraseKey, type Lexicon } from './lexicon.js';
import { correct, isContentWord, read, tokens, vocabularyOf, STOP, type Reading, type Vocabulary } from './normalise.js';
import { splitParts } from './parts.js';
import { entitiesIn, keepIn, pathIn, sortIn, unitIn, type Entities } from './entities.js';
import { actionIn, POLITE, type ActRequest } from './action.js';
import { askIn, type Ask } from './ask.js';
import { quotesIn, withoutQuotes } from './quotes.js';

export { buildLexicon, parseLexicon, lexiconSchema, EMPTY_LEXICON, LexiconError, type Lexicon, type LexiconDoc } from './lexicon.js';
export { read, correct, editDistance, tokens, vocabularyOf, STOP, type Reading, type Vocabulary } from './normalise.js';
export { splitParts, type Fragment } from './parts.js';
export { entitiesIn, unitIn, pathIn, windowIn, keepIn, bytesIn, priorityIn, sortIn, type Entities, type Window } from './entities.js';
export { actionIn, type ActRequest } from './action.js';
export { askIn, nounIn, ASK_KINDS, ASK_NOUNS, type Ask, type AskKind, type AskNoun } from './ask.js';
export { quotesIn, withoutQuotes } from './quotes.js';
export { bootIn, spanIn } from './when.js';

/** What goals are read against: the lexicon, the words the tools and playbooks know, and the topic words that are never unit names. */
export interface GoalContext {
  lexicon: Lexicon;
  vocab: Vocabulary;
  topics: ReadonlySet<string>;
}

/**
 * The context for a set of tool and playbook texts (names, descriptions, "when" lines, intent
 * phrases): all of them make the vocabulary; the lexicon's words and `topicTexts` (the playbooks'
 * intent phrases) are topics, never read as a unit name.
 */
export function goalContext(lexicon: Lexicon, texts: readonly string[], topicTexts: readonly string[] = []): GoalContext {
  const topics = new Set<string>();
  for (const d of Object.values(lexicon.documents)) {
    for (const e of [...d.groups.flat(), ...d.acts.flatMap((a) => a.slice(1))]) for (const w of tokens(e)) topics.add(w);
  }
  for (const t of topicTexts) for (const w of tokens(t)) topics.add(w);
  return { lexicon, vocab: vocabularyOf(texts, lexicon), topics };
}

export interface GoalPart {
  /** 0-based, in the goal's order */
  index: number;
  /** the part as the owner typed it */
  text: string;
  reading: Reading;
  entities: Entities;
  action: ActRequest | null;
  /**
   * what the part asks about, when it says so outright ("how many X", "what's the X of"), and the
   * words of it that nothing here knows: a part whose focus holds such a word asks about something
   * no tool looks at, and is not answered with a neighbouring fact ("how many docker containers");
   * `attribute`: what a size or speed question measures of it; `subject`: read from "is my X …",
   * where a unit the part names is what it is about; `groups`: the lexicon groups of a subject and
   * what it is said to be, when they are more than one ("sd card healthy": disk, health)
   */
  focus: { text: string; unknown: string[]; attribute?: string; subject?: true; groups?: string[]; asked?: string } | null;
  /** what the part asks of the facts (ask.ts); a membership's list is what the part is about */
  ask: Ask;
  /**
   * the words the part asks about: a membership's list, else the thing and what is asked of it
   * (the focus), else the part's own words without a path's folders, a unit's name or a quotation
   */
  subject: string;
  /** the subject as read through the lexicon: playbooks are matched on these terms only */
  subjectReading: Reading;
  /**
   * the part asks about the world in general, not this machine: a word of the lexicon's `general`
   * list ("explain", "invented") or a machine spoken of as a kind ("a pi 5", "for a raspberry pi")
   */
  general: string | null;
}

export interface Understood {
  goal: string;
  parts: GoalPart[];
  /** spelling fixes made anywhere in the goal */
  fixes: { from: string; to: string }[];
}

// what a part asks about, when it says so outright; the first pattern that matches wins
const FOCUS: { re: RegExp; attribute?: string; head?: true; predicate?: true; plain?: true; quoted?: true; of?: true }[] = [
  // "how much space do the journal logs take up": the size of the thing named
  { re: /\bhow\s+much\s+(?:disk\s+)?(?:space|room|storage|disk)\s+(?:does|do|did|is|are|will|would)\s+(?:the\s+|my\s+|our\s+|this\s+|these\s+|all\s+(?:the\s+|my\s+)?)?(.+?)\s+(?:take|taking|use|using|occupy|occupying|eat|eating|hog|hogging|need|fill|filling)\b/i, attribute: 'size' },
  // "how big is the apt cache", "how fast is my internet"
  { re: /\bhow\s+(big|large|fast|old)\s+(?:is|are|was|were|'s)\s+(?:the\s+|my\s+|our\s+|this\s+|that\s+)?(.+?)(?=\s+(?:now|today|getting|right|at|on|in)\b|[?,.!]|$)/i },
  // "how hot is it outside", "how full is the nas": the thing, whatever is asked of it
  { re: /\bhow\s+(?!many\b|much\b|long\b|come\b|often\b|do\b|does\b|did\b|can\b|could\b|should\b|would\b|to\b)([a-z]+)\s+(?:is|are|was|were|'s)\s+(?:the\s+|my\s+|our\s+|this\s+|that\s+)?(.+?)(?=\s+(?:now|today|getting|right|at|on|in|running|according|from|by|for|with|per|after|since|during|when|while|because|than|compared)\b|[?,.!]|$)/i, plain: true },
  // "what temperature should my fridge be at": what should hold of the thing
  { re: /^what\s+([a-z]+)\s+should\s+(?:the\s+|my\s+|our\s+|a\s+|an\s+)?(.+?)\s+(?:be|run|get|stay|have|use)\b/i },
  { re: /\bhow\s+(?:many|much)\s+(.+?)(?=\s+(?:is|are|was|were|do|does|did|have|has|can|could|will|would|on|in|at|of|for|from|left|free|used|running|there)\b|[?,.!]|$)/i },
  // "what's the voltage of my car battery": what is asked of the thing after "of"
  { re: /\bwhat(?:'s|s|\s+is|\s+are|\s+was)\s+(?:the\s+|my\s+|this\s+)?(.+?)\s+(?:of|for|on)\s+(?:the\s+|my\s+|our\s+|this\s+|that\s+)?(.+?)(?=[?,.!]|$)/i, of: true },
  // "is my nas healthy", "are the ssl certs ok", "what's the wifi password": the head of what follows "the" or "my"
  { re: /^(?:is|are|was|were|has|have|does|do|did|what(?:'s|s|\s+is|\s+are|\s+was))\s+(?:the|my|our|your)\s+(.+)$/i, head: true },
  // "pip says "error: …"": the program that said it is the thing (its message is evidence)
  { re: /^([A-Za-z][A-Za-z0-9._+-]*)\s+(?:says|said|shows|showed|gives|gave|prints|printed|reports|reported|complains|complained|throws|threw)\b/i, head: true, quoted: true },
  // "when is the next kernel release", "tell me about the history of the linux kernel": the thing asked after
  { re: /^(?:when|where)\s+(?:is|are|was|were|will|does|did)\s+(?:the\s+|my\s+|our\s+)?(.+)$/i, head: true },
  { re: /^(?:tell\s+(?:me|us)\s+(?:about|of)|talk\s+about|describe)\s+(?:the\s+|my\s+|our\s+)?(.+)$/i, head: true },
  // "which wifi networks are nearby": what is picked, and what it is said to be
  { re: /^which\s+(.+?)\s+(?:is|are|was|were)\s+(.+)$/i, head: true, predicate: true },
  // "i think my sd card is corrupted", "the fan is loud": a thing and what the owner says it is
  { re: /^(?:(?:i\s+think|i\s+guess|i\s+fear|i\s+suspect|i\s+feel\s+like|seems\s+like|looks\s+like|maybe|so)\s+)?(?:the|my|our|your)\s+(.+?)\s+(?:is|are|was|were|seems?|looks?|keeps?|got|has\s+been|have\s+been)\s+(.+)$/i, head: true, predicate: true },
];

const SIZE_WORDS = /^(?:big|large)$/i;

/** The focus of a part (see GoalPart.focus), or null when it does not name one outright. */
function focusOf(text: string, ctx: GoalContext): GoalPart['focus'] {
  for (const f of FOCUS) {
    const m = f.re.exec(text.trim());
    if (!m) continue;
    const attribute = f.attribute ?? (m.length > 2 && !f.head && !f.plain ? (SIZE_WORDS.test(m[1]!) ? 'size' : m[1]!.toLowerCase()) : undefined);
    let focus = m[m.length - 1]!.trim();
    if (f.head) {
      // the first two words that carry a topic, a possessive dropped ("my pi's cpu" → cpu), and
      // with a predicate ("which X are nearby") its first such word too
      const content = (t: string) => tokens(t).map((w) => w.replace(/'s$/, '')).filter((w) => isContentWord(w, ctx.lexicon));
      const thing = content(m[1]!);
      const words = [...thing.slice(0, 2), ...(f.predicate ? content(m[2]!).slice(0, 2) : [])];
      if (words.length === 0) continue;
      focus = words.join(' ');
      // the thing and what it is said to be, through the lexicon: "is my sd card healthy" → disk,
      // health; "is the soc running warm" → cpu, temperature (the first words of what follows
      // "is", or the last of the first three)
      const said = read(thing.slice(0, 2).join(' '), ctx.lexicon).groups.slice(0, 1);
      // (a phrase of the first two words counts whole: "acting up"; else the first word: "showing")
      const pred = f.predicate ? content(m[2]!) : thing.length > 1 ? thing.slice(0, 3).slice(-1) : [];
      const is = pred.length > 1 ? ctx.lexicon.means.get(phraseKey(pred.slice(0, 2).join(' '))) : undefined;
      const g = is ?? (pred[0] ? read(pred[0], ctx.lexicon).groups[0] : undefined);
      if (g && !said.includes(g)) said.push(g);
      // a program's quoted message says what the trouble is about ("dmesg says "Under-voltage detected!"")
      const quoted = f.quoted ? quotesIn(text).map((q) => text.slice(q.start, q.end)).join(' ') : '';
      return { text: focus, unknown: read(focus, ctx.lexicon, ctx.vocab).unknown, subject: true, ...(said.length > 1 ? { groups: said } : {}), ...(quoted ? { asked: quoted } : {}) };
    }
    // what is asked of the thing is read too ("the network speed of …": nothing here knows speed)
    const asked = f.of && attribute ? `${attribute} ` : '';
    return { text: focus, unknown: read(`${asked}${focus}`, ctx.lexicon, ctx.vocab).unknown, ...(attribute ? { attribute } : {}), ...(f.plain ? { asked: m[1]!.toLowerCase() } : {}) };
  }
  return null;
}

/** A part whose first word (after "please", "can you" …) is a misspelt act verb, with the verb spelt right ("restrat nginx"). */
function verbSpelt(text: string, ctx: GoalContext): string {
  const body = text.replace(POLITE, '');
  const m = /^([A-Za-z]+)/.exec(body);
  if (!m || ctx.lexicon.actForms.has(m[1]!.toLowerCase())) return text;
  // the vocabulary holds the lexicon's act verbs (vocabularyOf), so a near miss of one is found
  const fixed = correct(m[1]!.toLowerCase(), ctx.vocab, ctx.lexicon);
  return ctx.lexicon.actForms.has(fixed) ? `${text.slice(0, text.length - body.length)}${fixed}${body.slice(m[1]!.length)}` : text;
}

const REPORTED = /\b(?:says|said|shows|showed|gives|gave|prints|printed|reports|reported|getting|got|get|see|saw|seeing|keeps?\s+(?:saying|showing))\s*[:,]?\s*["'`\u201c\u2018]/i;

/** The words of a part that ask about the world in general (see GoalPart.general), or null. */
function generalIn(text: string, ctx: GoalContext): string | null {
  // "dmesg says "Under-voltage detected!", what does that mean": a message this machine gave is about this machine
  if (REPORTED.test(text)) return null;
  const ws = tokens(withoutQuotes(text));
  for (let i = 0; i < ws.length; i++) {
    for (let n = Math.min(ctx.lexicon.longest, ws.length - i); n >= 1; n--) {
      const phrase = ws.slice(i, i + n).join(' ');
      if (ctx.lexicon.general.has(phraseKey(phrase))) return phrase;
    }
  }
  // "a pi 5", "for a raspberry pi": the machine as a kind, not this one
  const self = ctx.lexicon.self;
  if (!self) return null;
  for (const m of text.matchAll(/\b(for|buy|get|with|on|does|do|should|would|could|can|will|must)?\s*\b(?:a|an)\s+(?:new\s+|good\s+|spare\s+|second\s+|typical\s+)?(?:raspberry\s+)?([a-z]+)\b(\s+(?:\d|zero|model|pico|compute)\w*)?/gi)) {
    if (self.words.has(m[2]!.toLowerCase()) && (m[1] || m[3])) return m[0].trim();
  }
  return null;
}

const POINTS_BACK = /\b(?:it|its|it's|that|this|them|they|their|there|same)\b/i;

/**
 * The words of a part that say what it is about: a path's folders and name are the path's, not
 * the question's ("/var/log/daemon.log" asks nothing about logs), but its extension says what kind
 * of file it is ("png"); a unit's name is replaced by the word "service".
 */
function topicText(text: string, e: Entities): string {
  // a threshold ("over 90%", "more than 2 GB") filters what is asked for; it is not a topic
  let t = text.replace(/\b(?:over|above|below|under|beyond|(?:more|less|greater|fewer)\s+than|at\s+(?:least|most))\s+\d+(?:[.,]\d+)?\s*(?:%|percent\b|per\s*cent\b|[kmgt]i?b?\b)?/gi, ' ');
  if (e.path) {
    const ext = /\.([A-Za-z0-9]{1,5})$/.exec(e.path.split('/').pop() ?? '');
    t = t.split(e.path).join(ext ? ` ${ext[1]} ` : ' ');
  }
  if (e.unit) {
    const bare = e.unit.replace(/\.service$/, '');
    t = t.split(e.unit).join(' service ').replace(new RegExp(`\\b${bare.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'g'), ' service ');
  }
  return t;
}

/** Whether a fragment asks something of its own (see parts.ts); a count to keep is an argument of a request, never a question. */
function carries(text: string, ctx: GoalContext): boolean {
  if (actionIn(text, ctx.lexicon)) return true;
  if (keepIn(text) !== null) return false;
  if (unitIn(text, ctx.topics)) return true;
  const r = read(text, ctx.lexicon, ctx.vocab);
  if (r.groups.length > 0 || r.unknown.length > 0) return true;
  return r.words.filter((w) => isContentWord(w, ctx.lexicon)).length >= 3;
}

const QUESTION_WORD = /^(?:which|what(?:'s|s)?|who|whose|where|when|why|how\s+(?:many|much))\b/i;

/**
 * Whether a fragment asks more of the part before it: it opens with a question word, names no
 * unit, path or request of its own, and every topic it touches is the part's ("the disk is full,
 * which filesystem is it?", "my disk is full, what's using it?") — its object, or a pronoun
 * pointing back. "…, how many errors did it log today" touches the log: a question of its own.
 */
function continues(part: string, fragment: string, ctx: GoalContext): boolean {
  // "…, and if so which services": the condition points back at the part
  const text = fragment.replace(/^(?:and\s+|but\s+)?if\s+(?:so|not|yes|any|there\s+(?:are|is)\s+any)\s*,?\s*/i, '');
  const conditional = text !== fragment;
  if (!QUESTION_WORD.test(text.trim()) || actionIn(text, ctx.lexicon) || unitIn(text, ctx.topics) || pathIn(text, ctx.topics)) return false;
  const mine = read(text, ctx.lexicon, ctx.vocab);
  const before = read(part, ctx.lexicon, ctx.vocab);
  if (conditional) return true;
  if (!mine.groups.every((g) => before.groups.includes(g))) return false;
  return mine.groups.length > 0 || POINTS_BACK.test(text);
}

/** Read a goal: its parts, each with its reading, entities and request to act. `now`: when it was asked (windows that name a day). */
export function understand(goal: string, ctx: GoalContext, now: Date = new Date()): Understood {
  const fragments = splitParts(goal, (t) => carries(t, ctx), (p, t) => continues(p, t, ctx));
  const parts: GoalPart[] = fragments.map((f, index) => {
    const entities = entitiesIn(f.text, ctx.topics, [], now);
    // a misspelt topic word is not a unit ("netwrok down?")
    const bare = entities.unit?.replace(/\.service$/, '');
    if (bare && !/[A-Z.@_]/.test(bare) && correct(bare, ctx.vocab, ctx.lexicon) !== bare) entities.unit = null;
    const topic = topicText(f.text, entities);
    const reading = read(topic, ctx.lexicon, ctx.vocab);
    entities.sort = sortIn(f.text, reading.groups);
    // "how's my pi doing": a question about nothing but the machine asks after its health
    const self = ctx.lexicon.self;
    const action = actionIn(verbSpelt(f.text, ctx), ctx.lexicon);
    if (self && !action && reading.terms.length === 0 && !entities.unit && !entities.path && tokens(f.text).some((w) => self.words.has(w.replace(/'s$/, '')))) {
      const asks = read(self.means, ctx.lexicon);
      reading.terms.push(...asks.terms);
      for (const g of asks.groups) if (!reading.groups.includes(g)) reading.groups.push(g);
    }
    const ask = askIn(withoutQuotes(f.text), entities);
    if (ask.kind === 'member' && ask.name) {
      // the thing looked for in a list is not what the part is about (the list is)
      if (entities.unit === ask.name || entities.unit === `${ask.name}.service`) entities.unit = null;
      if (entities.path === ask.name) entities.path = null;
    }
    const { list, ...asked } = ask;
    const focus = focusOf(topic, ctx);
    // the focus is the subject when it names something ("what's going on" names nothing); what is
    // asked of it ("hot", "size") belongs to the subject too
    const named = focus && tokens(focus.text).some((w) => isContentWord(w, ctx.lexicon)) ? focus : null;
    const about = list ?? (named ? [named.asked ?? (named.attribute && !named.text.includes(named.attribute) ? named.attribute : ''), named.text].filter(Boolean).join(' ') : null);
    const subject = about ?? reading.words.filter((w) => isContentWord(w, ctx.lexicon)).join(' ');
    const subjectReading = about ? read(about, ctx.lexicon, ctx.vocab) : reading;
    return { index, text: f.text, reading, entities, action, focus, ask: asked, subject, subjectReading, general: generalIn(f.text, ctx) };
  });
  // "check nginx and mosquitto", "… and what about postgresql": a part that is one bare name, in a
  // goal whose other part names a unit, names a unit too
  for (const p of parts) {
    const bare = p.text.replace(/^(?:(?:what|how)\s+about|(?:and\s+)?(?:same|also)\s+(?:for|with)|(?:are|is|were|was)\s+(?:both|either)?)\s+(?:the\s+)?/i, '').replace(/[?.!]+$/, '');
    const name = /^[A-Za-z0-9][A-Za-z0-9@._:-]*$/.exec(bare)?.[0];
    if (!name || p.entities.unit || p.entities.path || p.reading.groups.length > 0 || ctx.topics.has(name.toLowerCase()) || STOP.has(name.toLowerCase())) continue;
    if (!parts.some((o) => o !== p && o.entities.unit)) continue;
    p.entities.unit = name.includes('.') ? name : `${name}.service`;
    p.reading = read(topicText(p.text, p.entities), ctx.lexicon, ctx.vocab);
    if (!p.focus && p.ask.kind !== 'member') p.subjectReading = p.reading;
  }
  for (const p of parts) {
    if (!POINTS_BACK.test(p.text)) continue;
    const before = parts.slice(0, p.index).reverse();
    if (p.entities.unit === null) p.entities.unit = before.find((b) => b.entities.unit)?.entities.unit ?? null;
    if (p.entities.path === null) p.entities.path = before.find((b) => b.entities.path)?.entities.path ?? null;
  }
  const fixes = read(goal, ctx.lexicon, ctx.vocab).fixes;
  return { goal, parts, fixes };
}
