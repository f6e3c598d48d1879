/**
 * The things a goal names, read by rule from the owner's own text (T0):
 * systemd units, paths, sizes, counts to keep, a time window, a log
 * priority and a sort order — each in the form the shipped tools accept,
 * and each only when the text names it (null otherwise; never a guess).
 *
 * Units keep their case (unit names are case-sensitive: `pihole-FTL`), and
 * only a word that looks like a unit name is one: never a pronoun, a
 * question word, a word for the machine or its parts, or a word the lexicon
 * or the tools know as a topic ("is the disk running" names no unit). The
 * caller passes those topic words in (`topics`), so a word added to the
 * lexicon stops being read as a unit at once.
 *
 * A unit is a word shaped like a unit name that a verb of service or the
 * subject points at — never a quantifier ("many", "several", "both"), a
 * number, a clock time ("10pm"), a date, or the first folder of a path. A
 * name the owner spells outside a quotation is spelt the owner's way
 * (`docker says "Cannot connect to the Docker daemon"` names docker).
 *
 * A window says in words which stretch it is (`label`), so the answer can
 * tell the owner what it read: "the last 30 minutes", "since yesterday",
 * "since the last boot", "from 09:00 to 11:00 yesterday". Windows with both
 * ends, days and boots by offset are read by when.ts.
 */

import { POLITE } from './action.js';
import { quotesIn, withoutQuotes } from './quotes.js';
import { bootIn, sinceClock, spanIn } from './when.js';

export interface Window {
  /** journalctl --since, or null when the window is a boot */
  since: string | null;
  /** journalctl --until, when the window has an end */
  until?: string | null;
  /** journalctl --boot (0 this boot, -1 the one before), or null */
  boot: number | null;
  /** the window in words */
  label: string;
}

export interface Entities {
  unit: string | null;
  path: string | null;
  /** a size in bytes ("100M", "2 GB") */
  bytes: number | null;
  /** how many to keep ("keep the 5 newest", "all but 2") */
  keep: number | null;
  window: Window | null;
  priority: 'crit' | 'err' | 'warning' | null;
  sort: 'cpu' | 'mem' | null;
  /** a network port named as one ("port 22", "22/tcp"), 1–65535 */
  port: number | null;
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, fifteen: 15, twenty: 20, thirty: 30, forty: 40, fifty: 50, couple: 2, few: 3,
};
const NUM = `(\\d{1,4}|${Object.keys(NUMBER_WORDS).join('|')})`;
const num = (s: string): number => (/^\d+$/.test(s) ? Number(s) : NUMBER_WORDS[s.toLowerCase()] ?? 1);

// words never read as a unit name, whatever they stand next to
const NOT_UNIT = new Set([
  'a', 'an', 'the', 'this', 'that', 'these', 'those', 'my', 'your', 'our', 'its', 'it', 'he', 'she', 'they', 'them', 'you', 'u', 'me', 'i', 'we', 'us',
  'what', 'who', 'why', 'how', 'when', 'where', 'which', 'whatever', 'there', 'here', 'now', 'still', 'never', 'always', 'not', 'and', 'or', 'but',
  'everything', 'anything', 'something', 'nothing', 'all', 'any', 'some', 'each', 'every', 'one', 'is', 'was', 'did', 'does', 'has', 'been', 'be', 'to',
  'of', 'in', 'on', 'at', 'for', 'with', 'from', 'after', 'before', 'since', 'if', 'whether', 'please', 'pls', 'can', 'could', 'would', 'will', 'just', 'again', 'so',
  'pi', 'raspberry', 'machine', 'computer', 'box', 'server', 'host', 'board', 'device', 'system', 'systemd', 'process', 'processes', 'script', 'job',
  'program', 'app', 'application', 'thing', 'stuff', 'web', 'main', 'whole', 'new', 'old', 'keep', 'keeps', 'kept', 'check', 'restart', 'start', 'stop',
  'status', 'state', 'log', 'logs', 'service', 'services', 'unit', 'units', 'daemon', 'daemons', 'failed', 'broken',
  'are', 'were', 'am', 'do', 'had', 'have', 'being', 'should', 'shall', 'may', 'might', 'must', 'list', 'show', 'tell', 'give', 'get', 'see', 'why',
  'past', 'last', 'next', 'previous', 'today', 'yesterday', 'tonight', 'hour', 'hours', 'day', 'days', 'week', 'weeks', 'minute', 'minutes', 'morning', 'night',
  // quantifiers and counts: how many, never which
  'many', 'few', 'several', 'most', 'more', 'less', 'fewer', 'both', 'either', 'neither', 'none', 'no', 'lot', 'lots', 'plenty', 'couple', 'bunch',
  'dozen', 'dozens', 'number', 'numbers', 'half', 'things', 'others', 'rest', 'everyone', 'anyone', 'someone', 'nobody', 'somebody', 'else',
  'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'first', 'second', 'third', 'once', 'twice',
  // times of day and days
  'noon', 'midnight', 'midday', 'afternoon', 'evening', 'tomorrow', 'weekend', 'month', 'months', 'year', 'years',
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday',
]);

// a number, a clock time ("10pm", "04:15"), a date or a size is never a unit's name
const NOT_UNIT_SHAPE = /^(?:\d+(?:[:.,]\d+)*\s*(?:am|pm|h|hrs?|m|mins?|s|secs?|st|nd|rd|th|k|kb|m|mb|g|gb|t|tb|%)?|\d{4}-\d{2}-\d{2}(?:[T ].*)?|\d+(?:am|pm))$/i;

const UNIT_WORD = '([A-Za-z0-9][A-Za-z0-9@._:-]{0,250})';
// systemd's unit types: a name ending in one is a unit, never a file name
const UNIT_TYPES = ['service', 'socket', 'timer', 'mount', 'target', 'path', 'slice', 'scope', 'device', 'swap', 'automount'];
const UNIT_SUFFIX = new RegExp(String.raw`\b([A-Za-z0-9][A-Za-z0-9@._:\\-]*\.(?:${UNIT_TYPES.join('|')}))\b`);
// "the nginx service", "my plex server", "status of docker", "errors from cron", "is cron running", "what did nginx log"
const UNIT_PATTERNS: RegExp[] = [
  new RegExp(`\\b${UNIT_WORD}\\s+(?:service|daemon|unit|server)\\b`, 'g'),
  new RegExp(`\\b(?:status|state|logs?|journal|errors?|warnings?|messages?|lines?)\\s+(?:of|for|from|by)\\s+(?:the\\s+|my\\s+)?${UNIT_WORD}`, 'gi'),
  new RegExp(`\\b${UNIT_WORD}\\s+(?:status|state|logs?)\\b`, 'g'),
  new RegExp(`\\b(?:check\\s+on|restart|reload|stop|start|kill|enable|disable|is|did|does|has|was)\\s+(?:the\\s+|my\\s+)?${UNIT_WORD}\\s+(?:(?:is|was|has|have|been|still|not|never|keeps?|kept|again|even|already|currently|now)\\s+)*(?:running|run|ran|up|alive|active|enabled|disabled|masked|down|dead|working|responding|ok|okay|fine|crash(?:ed|ing)?|restart(?:ed|ing)?|start(?:ed)?|stop(?:ped)?|die[sd]?|fail(?:ed)?|log(?:ged)?|print(?:ed)?|say|said|write|wrote|report(?:ed)?|complain(?:ed)?)\\b`, 'gi'),
  new RegExp(`\\b${UNIT_WORD}\\s+(?:(?:is|was|has|have|been|still|not|never|always|won'?t|doesn'?t|does|didn'?t|did|isn'?t|wasn'?t|to)\\s+)*(?:keeps?\\s+|kept\\s+)?(?:running|crash(?:es|ed|ing)?|restart(?:s|ed|ing)?|stop(?:s|ped|ping)?|start(?:s|ed|ing)?|die[sd]?|dying|fail(?:s|ed|ing)?|down|active|alive|working|responding)\\b`, 'g'),
  // "the lines ssh logged", "what nginx wrote since boot"
  new RegExp(`\\b(?:lines?|messages?|errors?|warnings?|what|everything|anything)\\s+(?:the\\s+)?${UNIT_WORD}\\s+(?:has\\s+|have\\s+)?(?:logged|wrote|written|printed|reported|said|complained)\\b`, 'gi'),
  // journalctl's and systemctl's own words: "-u mosquitto", "--unit=nginx", "status nginx" closing the part
  new RegExp(`(?:^|\\s)(?:-u|--unit)(?:\\s+|=)${UNIT_WORD}`, 'g'),
  new RegExp(`\\bstatus\\s+(?:of\\s+)?(?:the\\s+)?${UNIT_WORD}\\s*[?.!]*$`, 'gi'),
];
// "restart mosquitto", "check (on) cron": only where the part opens with the verb (after "please",
// "can you" …) — inside a question the word after a verb is seldom a unit ("a kill recently")
const UNIT_AFTER_VERB = new RegExp(`^(?:check(?:\\s+on)?(?!\\s+(?:if|whether|that|for|what|how)\\b)|restart|reload|stop|start|kill|enable|disable)\\s+(?:the\\s+|my\\s+)?${UNIT_WORD}`, 'i');

/**
 * The unit a text names (case kept, `.service` added to a bare name), or null. `topics`: words the
 * tools and lexicon know as topics. The owner's own words are read first, then a quotation's; a
 * name found in a quotation that the owner also typed outside it is spelt the owner's way.
 */
export function unitIn(text: string, topics: ReadonlySet<string> = new Set()): string | null {
  const own = withoutQuotes(text);
  const mine = own !== text ? unitInText(own, topics) : null;
  if (mine || own === text) return mine ?? unitInText(text, topics);
  const quoted = unitInText(quotesIn(text).map((q) => text.slice(q.start, q.end)).join(' . '), topics);
  if (!quoted) return null;
  const bare = quoted.replace(/\.service$/, '');
  const typed = own.split(/[^A-Za-z0-9@._:-]+/).find((w) => w.toLowerCase() === bare.toLowerCase());
  return typed ? quoted.replace(bare, typed) : quoted;
}

function unitInText(text: string, topics: ReadonlySet<string>): string | null {
  const full = UNIT_SUFFIX.exec(text);
  if (full) return full[1]!;
  // the earliest name any pattern finds ("the mosquitto logs from the past 3 days" → mosquitto)
  let best: { at: number; name: string } | null = null;
  const body = text.replace(POLITE, '');
  const lead = text.length - body.length;
  const found = [...UNIT_PATTERNS.flatMap((re) => [...text.matchAll(re)].map((m) => ({ m, at: 0 }))), ...[UNIT_AFTER_VERB.exec(body)].filter((m) => m !== null).map((m) => ({ m, at: lead }))];
  for (const { m, at: off } of found) {
    const name = m[1]!.replace(/[.:-]+$/, '');
    const lower = name.toLowerCase();
    // an adverb ("recently"), a word in -ing ("is acting up") or a past participle ("archived
    // logs") is never a unit
    if (name.length < 2 || NOT_UNIT.has(lower) || topics.has(lower) || NOT_UNIT_SHAPE.test(name) || name.includes('/') || /^(?:[a-z]{3,}(?:ly|ing)|[a-z]{4,}ed)$/.test(name)) continue;
    const at = off + m.index! + m[0].indexOf(m[1]!);
    // the first folder of a path ("lines of examples/data/syslog.txt") is the path's
    if (text[at + m[1]!.length] === '/') continue;
    if (!best || at < best.at) best = { at, name };
  }
  return best ? `${best.name}.service` : null;
}

// an absolute path, ~/ or ./ path, or a relative path of two or more parts
const PATH = /(?:^|[\s"'`(=:,])((?:~|\.{1,2})?\/[A-Za-z0-9._@%+~-][A-Za-z0-9._@%+~/-]*|[A-Za-z0-9._@%+~-]+(?:\/[A-Za-z0-9._@%+~-]+)+\/?)/g;

// a file name without a folder ("photo.jpg", "clip.wav"): a name, a dot and an extension of letters
// (and digits) — never a unit ("cron.service"), an abbreviation ("e.g.") or a host name ("example.com")
const FILE_NAME = /(?:^|[\s"'`(=:,])([A-Za-z0-9_@%+~-][A-Za-z0-9._@%+~-]*\.([A-Za-z][A-Za-z0-9]{0,4}))(?=$|[\s"'`),;:!?]|\.(?:\s|$))/g;
const NOT_FILE_EXT = new Set([...UNIT_TYPES, 'com', 'org', 'net', 'io', 'lan', 'local', 'e', 'g', 'i']);

/** The first path a text names, trailing punctuation dropped; a slash between two topic words ("disk/ram") is not a path; else a bare file name. */
export function pathIn(text: string, topics: ReadonlySet<string> = new Set()): string | null {
  return folderPathIn(text, topics) ?? fileNameIn(text);
}

function fileNameIn(text: string): string | null {
  for (const m of text.matchAll(FILE_NAME)) {
    const ext = m[2]!.toLowerCase();
    if (NOT_FILE_EXT.has(ext) || /^\d/.test(m[1]!) && /^[\d.]+$/.test(m[1]!.slice(0, -ext.length - 1))) continue;
    return m[1]!;
  }
  return null;
}

function folderPathIn(text: string, topics: ReadonlySet<string>): string | null {
  for (const m of text.matchAll(PATH)) {
    let p = m[1]!.replace(/[.,;:!?)]+$/, '');
    if (p.length > 1) p = p.replace(/\/$/, '');
    if (!p.startsWith('/') && !p.startsWith('~') && !p.startsWith('.')) {
      const parts = p.split('/');
      if (parts.every((x) => topics.has(x.toLowerCase()) || /^\d+$/.test(x))) continue;
      // "22/tcp", "53/udp": a port and its protocol (portIn), not a file
      if (/^\d{1,5}\/(?:tcp|udp)$/i.test(p)) continue;
    }
    if (p.length >= 1) return p;
  }
  return null;
}

const SIZE = /\b(\d+(?:\.\d+)?)\s*(k|kb|kib|m|mb|mib|meg|megs|g|gb|gib|gig|gigs|t|tb|tib)\b/i;
const SCALE: Record<string, number> = { k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };

/** A size the text names ("100M", "2 GB"), in bytes. */
export function bytesIn(text: string): number | null {
  const m = SIZE.exec(text);
  return m ? Math.round(Number(m[1]) * SCALE[m[2]!.toLowerCase()[0]!]!) : null;
}

const KEEP_PATTERNS = [
  new RegExp(`\\b(?:keep(?:ing)?|leave|leaving|retain(?:ing)?|save|saving)\\s+(?:only\\s+|just\\s+)?(?:the\\s+)?(?:last\\s+|latest\\s+|newest\\s+|most\\s+recent\\s+)?${NUM}\\b`, 'i'),
  new RegExp(`\\b(?:to|but|except(?:\\s+for)?)\\s+(?:only\\s+|just\\s+)?(?:the\\s+)?(?:last|latest|newest|most\\s+recent)\\s+${NUM}\\b`, 'i'),
  new RegExp(`\\b(?:except(?:\\s+for)?|but|all\\s+but|apart\\s+from)\\s+(?:the\\s+)?(?:last|latest|newest|most\\s+recent)\\s+(one)\\b`, 'i'),
  new RegExp(`\\b(?:except(?:\\s+for)?|all\\s+but|but)\\s+(?:the\\s+)?${NUM}\\s+(?:newest|latest|most\\s+recent|last)\\b`, 'i'),
  // "down to 5 files", "to just 2 archives", "only the 3 newest"
  new RegExp(`\\b(?:down\\s+to|to)\\s+(?:just\\s+|only\\s+)?(?:the\\s+)?${NUM}\\s+(?:newest\\s+|latest\\s+|most\\s+recent\\s+)?(?:files?|archives?|logs?|ones?|newest|latest|most\\s+recent)\\b`, 'i'),
  new RegExp(`\\bonly\\s+(?:the\\s+)?(?:last\\s+|latest\\s+|newest\\s+)?${NUM}\\s+(?:newest|latest|most\\s+recent|files?|archives?|logs?)\\b`, 'i'),
  // "except 2", "all but 2", "save the last 3": a bare count after an exception
  new RegExp(`\\b(?:except(?:\\s+for)?|all\\s+but|apart\\s+from|other\\s+than|save)\\s+(?:the\\s+)?${NUM}\\b(?!\\s*(?:%|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|am|pm|:))`, 'i'),
  // "so only 6 remain", "until 4 are left"
  new RegExp(`\\b(?:only\\s+|just\\s+)?${NUM}\\s+(?:of\\s+them\\s+)?(?:remain|are\\s+left|is\\s+left|stay|survive)\\b`, 'i'),
  // "hang on to the five most recent", "hold on to 3"
  new RegExp(`\\b(?:hang|hold)\\s+on\\s+to\\s+(?:only\\s+|just\\s+)?(?:the\\s+)?(?:last\\s+|latest\\s+|newest\\s+)?${NUM}\\b`, 'i'),
];

/** How many to keep: "keep the 5 newest", "leave the 2 most recent", "to the latest three", "except for the newest one". */
export function keepIn(text: string): number | null {
  for (const re of KEEP_PATTERNS) {
    const m = re.exec(text);
    if (m) return num(m[1]!);
  }
  return null;
}

const UNIT_OF_TIME: Record<string, { unit: string; label: string }> = {
  s: { unit: 's', label: 'second' }, sec: { unit: 's', label: 'second' }, secs: { unit: 's', label: 'second' }, second: { unit: 's', label: 'second' }, seconds: { unit: 's', label: 'second' },
  m: { unit: 'min', label: 'minute' }, min: { unit: 'min', label: 'minute' }, mins: { unit: 'min', label: 'minute' }, minute: { unit: 'min', label: 'minute' }, minutes: { unit: 'min', label: 'minute' },
  h: { unit: 'hour', label: 'hour' }, hr: { unit: 'hour', label: 'hour' }, hrs: { unit: 'hour', label: 'hour' }, hour: { unit: 'hour', label: 'hour' }, hours: { unit: 'hour', label: 'hour' },
  d: { unit: 'day', label: 'day' }, day: { unit: 'day', label: 'day' }, days: { unit: 'day', label: 'day' },
  w: { unit: 'week', label: 'week' }, wk: { unit: 'week', label: 'week' }, week: { unit: 'week', label: 'week' }, weeks: { unit: 'week', label: 'week' },
};
const TIME_UNIT = '(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wk|h|m|s|d|w)';

/** `n` units of time back in words ("the last hour", "the last 30 minutes"). */
function lastLabel(n: number, label: string): string {
  return n === 1 ? `the last ${label}` : `the last ${n} ${label}s`;
}

function span(n: number, unit: string): Window {
  const u = UNIT_OF_TIME[unit.toLowerCase()]!;
  const plural = n === 1 ? '' : 's';
  const since = u.unit === 'min' || u.unit === 's' ? `${n} ${u.unit} ago` : `${n} ${u.unit}${plural} ago`;
  return { since, boot: null, label: lastLabel(n, u.label) };
}

/**
 * A tool call's journal window — its `since` and `boot` arguments, as windowIn writes them or a
 * playbook's default sets them — in the words windowIn labels it with; null when it names none.
 */
export function windowLabel(args: Record<string, unknown> | undefined): string | null {
  if (args?.boot === 0 || args?.boot === '0') return 'since the last boot';
  if (args?.boot === -1 || args?.boot === '-1') return 'the boot before this one';
  if (typeof args?.boot === 'number' && args.boot < -1) return `the boot ${-args.boot} before this one`;
  const since = args?.since;
  if (typeof since !== 'string') return null;
  if (typeof args?.until === 'string') return `from ${since} to ${args.until}`;
  const ago = /^(\d+)\s*([a-z]+)\s+ago$/.exec(since);
  const u = ago ? UNIT_OF_TIME[ago[2]!] : undefined;
  if (ago && u) return lastLabel(Number(ago[1]), u.label);
  return since === 'today' ? 'today' : since === 'yesterday' ? 'since yesterday' : `since ${since}`;
}

/**
 * The time window a text names, or null (then a tool reads its own default). `now`: when the goal
 * was asked, for windows that name a day ("yesterday evening", "on Monday").
 */
export function windowIn(text: string, now: Date = new Date()): Window | null {
  const boot = bootIn(text);
  if (boot) return { since: null, boot: boot.boot, label: boot.label };
  const both = spanIn(text, now);
  if (both) return { since: both.since, ...(both.until ? { until: both.until } : {}), boot: null, label: both.label };
  const t = text.toLowerCase();
  let m = /\b(?:last|past|previous|recent)\s+(?:half\s+(?:an\s+)?hour|30\s+min)\b|\bhalf\s+an\s+hour\b/.exec(t);
  if (m) return { since: '30 min ago', boot: null, label: 'the last 30 minutes' };
  m = /\b(?:last|past|previous)\s+quarter\s+(?:of\s+an\s+)?hour\b/.exec(t);
  if (m) return { since: '15 min ago', boot: null, label: 'the last 15 minutes' };
  m = new RegExp(`\\b(?:(?:in|over|during|for|within)\\s+)?(?:the\\s+)?(?:last|past|previous)\\s+(?:${NUM}\\s*)?${TIME_UNIT}\\b`).exec(t)
    ?? new RegExp(`\\b(?:since|from)\\s+${NUM}\\s*${TIME_UNIT}\\s+ago\\b`).exec(t)
    ?? new RegExp(`\\b${NUM}\\s*${TIME_UNIT}\\s+ago\\b`).exec(t);
  if (m) return span(m[1] === undefined ? 1 : num(m[1]), m[2]!);
  if (/\b(?:this|last|past)\s+week\b/.test(t)) return { since: '1 week ago', boot: null, label: 'the last week' };
  if (/\b(?:since|after|during|at)\s+(?:the\s+)?(?:last\s+|latest\s+)?(?:re)?boot(?:ing)?\b|\bsince\s+(?:it\s+)?(?:re)?boot(?:ed)?\b|\bthis\s+boot\b|\b(?:during|at)\s+(?:start-?up|boot)\b|\bboot\s+log\b|\bsince\s+start-?up\b/.test(t)) {
    return { since: null, boot: 0, label: 'since the last boot' };
  }
  if (/\bbefore\s+(?:the\s+|it\s+|that\s+)?(?:last\s+)?(?:re)?boot/.test(t) || /\bwhy\s+did\s+(?:it|the\s+\w+)\s+(?:re)?boot/.test(t)) return { since: null, boot: -1, label: 'the boot before this one' };
  if (/\b(?:last\s+night|overnight|since\s+yesterday|yesterday)\b/.test(t)) return { since: 'yesterday', boot: null, label: 'since yesterday' };
  if (/\b(?:today|this\s+morning|this\s+afternoon|this\s+evening|tonight)\b/.test(t)) return { since: 'today', boot: null, label: 'today' };
  m = /\bsince\s+(\d{1,2}:\d{2})\b/.exec(t);
  if (m) return { since: sinceClock(m[1]!.padStart(5, '0'), now), boot: null, label: `since ${m[1]}` };
  m = /\bsince\s+(\d{4}-\d{2}-\d{2})\b/.exec(t);
  if (m) return { since: m[1]!, boot: null, label: `since ${m[1]}` };
  return null;
}

/** "errors" → err, "warnings" → warning, "critical" → crit. */
export function priorityIn(text: string): Entities['priority'] {
  const t = text.toLowerCase();
  if (/\b(?:critical|crit|emergenc(?:y|ies)|panic)\b/.test(t)) return 'crit';
  if (/\b(?:err(?:or|ors)?|fail(?:s|ed|ing|ures?)?)\b/.test(t)) return 'err';
  if (/\bwarn(?:ing|ings)?\b/.test(t)) return 'warning';
  return null;
}

/** "memory" / "RAM" → mem; CPU, load, slowness → cpu. `groups`: the lexicon groups the text touches. */
export function sortIn(text: string, groups: readonly string[] = []): Entities['sort'] {
  if (groups.includes('memory') || /\b(?:memory|ram|mem|swap|oom)\b/i.test(text)) return 'mem';
  if (groups.includes('cpu') || groups.includes('slow') || groups.includes('load') || /\b(?:cpu|load|busy|slow|hog)\b/i.test(text)) return 'cpu';
  return null;
}

// "port 22", "port no. 8080", "ports 80", "22/tcp": a number is a port only where it is named as one
const PORT = /\bports?\s+(?:number\s+|no\.?\s+|#\s*)?(\d{1,5})\b|\b(\d{1,5})\/(?:tcp|udp)\b/i;

/** The port a text names as one, or null ("listening on port 22" → 22; a bare number never is). */
export function portIn(text: string): number | null {
  const m = PORT.exec(text);
  const n = m ? Number(m[1] ?? m[2]) : 0;
  return n >= 1 && n <= 65_535 ? n : null;
}

/** Every entity a text names (`now`: when it was asked, for windows that name a day). */
export function entitiesIn(text: string, topics: ReadonlySet<string> = new Set(), groups: readonly string[] = [], now: Date = new Date()): Entities {
  return {
    unit: unitIn(text, topics), path: pathIn(text, topics), bytes: bytesIn(text), keep: keepIn(text), window: windowIn(text, now),
    priority: priorityIn(text), sort: sortIn(text, groups), port: portIn(text),
  };
}
