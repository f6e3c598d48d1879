/**
 * The stretches of time a goal names with both ends, and the boots it names
 * by offset — read into the forms `journalctl --since/--until/--boot`
 * accepts, each with the window in words.
 *
 * - a range: "between 14:00 and 15:30", "from 9 to 11 yesterday", "10pm to
 *   midnight", "from 2 hours ago until 30 minutes ago", "between 3 and 5
 *   days ago", "2024-05-01 10:00 to 2024-05-01 12:00";
 * - a day, or a part of one: "on Monday", "last Saturday", "on 2024-06-01",
 *   "yesterday evening" (morning 06–12, afternoon 12–18, evening 18–24);
 * - a moment: "at 10:30", "around 3am" (half an hour either side);
 * - a boot: "the previous boot", "the boot before this one", "two boots
 *   ago", "boot -3", `-b -1` — 0 is this boot, -1 the one before.
 *
 * A clock time with no day is today's, unless it has not come yet: then it
 * is yesterday's ("between 1am and 3am" asked at 00:30). journalctl reads a
 * bare `HH:MM` as today, so any other day is written out as a date, which
 * needs the time the goal was asked (`now`): planning passes the time the
 * ledger recorded for the goal, so a replay reads the same window.
 *
 * Pure: the same text and `now` give the same window.
 */

export interface Span {
  since: string | null;
  until: string | null;
  boot: number | null;
  label: string;
}

const NUMBER: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
};
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const PART_OF_DAY: Record<string, [number, number]> = { morning: [6, 12], afternoon: [12, 18], evening: [18, 24], night: [22, 30] };

const pad = (n: number) => String(n).padStart(2, '0');
const dateOf = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const addDays = (d: Date, n: number) => { const x = new Date(d.getFullYear(), d.getMonth(), d.getDate()); x.setDate(x.getDate() + n); return x; };
const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/** A day the text names, as a midnight Date, with its words; null when it names none. */
function dayIn(t: string, now: Date): { day: Date; words: string; part?: string } | null {
  let m = /\b(yesterday|today|this)\s+(morning|afternoon|evening)\b/.exec(t);
  if (m) return { day: addDays(now, m[1] === 'yesterday' ? -1 : 0), words: m[1] === 'yesterday' ? `yesterday ${m[2]}` : `this ${m[2]}`, part: m[2]! };
  if (/\btonight\b/.test(t)) return { day: addDays(now, 0), words: 'tonight', part: 'evening' };
  m = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(t);
  if (m) return { day: new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])), words: `on ${m[0]}` };
  m = new RegExp(`\\b(last\\s+|on\\s+|this\\s+(?:past\\s+)?)?(${WEEKDAYS.join('|')})(?:\\s+(morning|afternoon|evening|night))?\\b`).exec(t);
  if (m) {
    const want = WEEKDAYS.indexOf(m[2]!);
    let back = (now.getDay() - want + 7) % 7;
    if (back === 0 && m[1]?.trim() === 'last') back = 7;
    return { day: addDays(now, -back), words: `on ${cap(m[2]!)}${m[3] ? ` ${m[3]}` : ''}`, ...(m[3] ? { part: m[3] } : {}) };
  }
  if (/\byesterday\b/.test(t)) return { day: addDays(now, -1), words: 'yesterday' };
  if (/\btoday\b/.test(t)) return { day: addDays(now, 0), words: 'today' };
  return null;
}

const CLOCK = String.raw`(?:noon|midday|midnight|\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?)`;

/** A clock time in minutes after midnight (midnight at the end of a range: 24:00), or null. */
function clock(s: string, end: boolean, pm: boolean): number | null {
  const w = s.trim();
  if (w === 'noon' || w === 'midday') return 12 * 60;
  if (w === 'midnight') return end ? 24 * 60 : 0;
  const m = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/.exec(w);
  if (!m) return null;
  let h = Number(m[1]);
  const min = m[2] ? Number(m[2]) : 0;
  if (h > 24 || min > 59) return null;
  const suffix = m[3]?.replace(/\./g, '');
  if (suffix === 'pm' && h < 12) h += 12;
  else if (suffix === 'am' && h === 12) h = 0;
  else if (!suffix && !m[2] && pm && h < 12) h += 12;
  return h * 60 + min;
}

/** A moment `minutes` after the midnight of `day`, in the form journalctl reads: a bare HH:MM for today, else a date and a time. */
function at(day: Date, minutes: number, now: Date): string {
  const d = addDays(day, Math.floor(minutes / 1440));
  const m = ((minutes % 1440) + 1440) % 1440;
  const hm = `${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
  if (dateOf(d) !== dateOf(now)) return `${dateOf(d)} ${hm}`;
  return m === 0 ? 'today' : hm;
}

/** Two clock times on one day (or the most recent past day they fit), as a span. */
function clockSpan(from: number, to: number, day: { day: Date; words: string } | null, now: Date, words: string): Span {
  let d = day?.day ?? addDays(now, 0);
  // a time not yet come today is yesterday's
  if (!day && from > now.getHours() * 60 + now.getMinutes()) d = addDays(now, -1);
  if (to <= from) to += 24 * 60;
  return { since: at(d, from, now), until: at(d, to, now), boot: null, label: `${words}${day ? ` ${day.words}` : ''}` };
}

const UNIT = String.raw`(seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|weeks?)`;
const AGO_UNIT: Record<string, [string, string]> = { s: ['s', 'second'], m: ['min', 'minute'], h: ['hour', 'hour'], d: ['day', 'day'], w: ['week', 'week'] };
const agoForm = (n: number, unit: string) => {
  const [u] = AGO_UNIT[unit[0] === 'm' && unit.startsWith('mi') ? 'm' : unit[0]!]!;
  return u === 'min' || u === 's' ? `${n} ${u} ago` : `${n} ${u}${n === 1 ? '' : 's'} ago`;
};
const agoWords = (n: number, unit: string) => {
  const [, w] = AGO_UNIT[unit[0] === 'm' && unit.startsWith('mi') ? 'm' : unit[0]!]!;
  return `${n} ${w}${n === 1 ? '' : 's'} ago`;
};
const count = (s: string) => (/^\d+$/.test(s) ? Number(s) : NUMBER[s] ?? null);

/** A window with both ends, a day, or a moment the text names; null when it names none of them. */
export function spanIn(text: string, now: Date): Span | null {
  // "from this morning till noon": a part of the day as an end is the hour it starts
  const t = text.toLowerCase().replace(/\b(from|since|between)\s+this\s+(morning|afternoon|evening)\b/g, (_, w: string, part: string) => `${w} ${PART_OF_DAY[part]![0]}:00`);
  // "from 2 hours ago until 30 minutes ago", "from 3 days ago to now"
  let m = new RegExp(String.raw`\b(?:from|between)\s+(\d{1,4}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s*${UNIT}\s+ago\s+(?:to|till|til|until|and)\s+(?:(now)|(\d{1,4}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s*${UNIT}\s+ago)\b`).exec(t);
  if (m) {
    const a = count(m[1]!)!;
    if (m[3]) return { since: agoForm(a, m[2]!), until: null, boot: null, label: `since ${agoWords(a, m[2]!)}` };
    const b = count(m[4]!)!;
    return { since: agoForm(a, m[2]!), until: agoForm(b, m[5]!), boot: null, label: `from ${agoWords(a, m[2]!)} to ${agoWords(b, m[5]!)}` };
  }
  // "between 3 and 5 days ago": the earlier end first
  m = new RegExp(String.raw`\b(?:between|from)\s+(\d{1,4})\s+(?:and|to|-)\s+(\d{1,4})\s*${UNIT}\s+ago\b`).exec(t);
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[2])].sort((x, y) => y - x) as [number, number];
    return { since: agoForm(a, m[3]!), until: agoForm(b, m[3]!), boot: null, label: `from ${agoWords(a, m[3]!)} to ${agoWords(b, m[3]!)}` };
  }
  // two dates with times: "from 2024-05-01 10:00 to 2024-05-01 12:00"
  m = /\b(\d{4}-\d{2}-\d{2}(?:[ t]\d{2}:\d{2}(?::\d{2})?)?)\s+(?:to|till|until|-)\s+(\d{4}-\d{2}-\d{2}(?:[ t]\d{2}:\d{2}(?::\d{2})?)?)\b/.exec(t);
  if (m) return { since: m[1]!.replace('t', ' '), until: m[2]!.replace('t', ' '), boot: null, label: `from ${m[1]} to ${m[2]}` };
  const day = dayIn(t, now);
  const pm = !!day?.part && ['afternoon', 'evening', 'night'].includes(day.part) || /\b(?:tonight|this\s+(?:afternoon|evening))\b/.test(t);
  // two clock times: "between 14:00 and 15:30", "from 9 to 11 yesterday", "10pm to midnight"
  m = new RegExp(String.raw`\b(?:(?:from|between)\s+)?(${CLOCK})\s*(?:to|till|til|until|and|-|–)\s*(${CLOCK})(?!\s*(?:${UNIT.slice(1, -1)}|%|files?|newest|latest))\b`).exec(t);
  if (m && (/[:a-z]/.test(m[1]!) || /[:a-z]/.test(m[2]!) || /^(?:from|between)\b/.test(m[0]))) {
    let from = clock(m[1]!, false, pm);
    const to = clock(m[2]!, true, pm);
    // "from 9 to 11pm": the first end is in the second's half of the day
    if (from !== null && to !== null && !/[ap]\.?m/.test(m[1]!) && /p\.?m/.test(m[2]!) && from < 720 && from + 720 <= to) from += 720;
    if (from !== null && to !== null) return clockSpan(from, to, day, now, `from ${fmt(from)} to ${fmt(to)}`);
  }
  // a moment: "at 10:30", "around 3am" — half an hour either side
  m = new RegExp(String.raw`\b(?:at|around|about|near|approx(?:imately)?)\s+(${CLOCK})(?!\s*(?:${UNIT.slice(1, -1)}|%))\b`).exec(t);
  if (m && /[:a-z]/.test(m[1]!)) {
    const c = clock(m[1]!, false, pm);
    if (c !== null) {
      const s = clockSpan(c - 30, c + 30, day, now, `around ${fmt(c)}`);
      // "around 00:10": the half hour before midnight is the day before
      if (c < 30) s.since = at(day?.day ?? addDays(now, 0), c - 30, now);
      return s;
    }
  }
  // "since 2024-06-01", "since yesterday": an open window, read by the single-ended rules
  if (!day || new RegExp(`\\b(?:since|after)\\s+(?:last\\s+|on\\s+)?${day.words.replace(/^on /, '').toLowerCase()}`).test(t)) return null;
  // a part of a day: "yesterday evening", "on Monday morning"
  if (day.part && !/^(?:this|tonight)/.test(day.words)) {
    const [a, b] = PART_OF_DAY[day.part]!;
    return { since: at(day.day, a * 60, now), until: at(day.day, b * 60, now), boot: null, label: day.words };
  }
  // a whole day other than today or yesterday: "on Monday", "what failed on 2024-06-01"
  if (day.words.startsWith('on ')) {
    return { since: dateOf(day.day), until: dateOf(addDays(day.day, 1)), boot: null, label: day.words };
  }
  return null;
}

/** "since 07:30": today's, or yesterday's when it has not come yet (as a date and a time). */
export function sinceClock(hm: string, now: Date): string {
  const [h, m] = hm.split(':').map(Number) as [number, number];
  return h * 60 + m > now.getHours() * 60 + now.getMinutes() ? `${dateOf(addDays(now, -1))} ${hm}` : hm;
}

/** Minutes after midnight as HH:MM (24:00 for the end of a day). */
function fmt(min: number): string {
  return `${pad(Math.floor(min / 60))}:${pad(min % 60)}`;
}

const BOOT_WORDS = '(previous|prior|preceding|last|one|two|three|four|five|six|seven|eight|nine|ten|\\d{1,2})';

/** The boot a text names by offset (0 this one, -1 the one before …), with its words; null when it names none this way. */
export function bootIn(text: string): { boot: number; label: string } | null {
  const t = text.toLowerCase();
  const label = (n: number) => (n === 0 ? 'since the last boot' : n === -1 ? 'the boot before this one' : `the boot ${-n} before this one`);
  // journalctl's own words: "-b -1", "--boot=-2", "boot -3"
  let m = /(?:^|\s)(?:-b|--boot)(?:\s+|=)(-?\d{1,2})\b/.exec(t) ?? /\bboots?\s+(-\d{1,2}|0)\b/.exec(t);
  if (m) {
    const n = Number(m[1]);
    if (n <= 0) return { boot: n, label: label(n) };
  }
  m = new RegExp(`\\b${BOOT_WORDS}\\s+boots?\\s+(?:ago|back|before)\\b`).exec(t);
  if (m && count(m[1]!) !== null) return { boot: -count(m[1]!)!, label: label(-count(m[1]!)!) };
  if (/\bboot\s+before\s+(?:the\s+)?last(?:\s+one)?\b|\bsecond[-\s]to[-\s]last\s+boot\b/.test(t)) return { boot: -2, label: label(-2) };
  if (/\b(?:previous|prior|preceding)\s+boot\b|\bboot\s+before\s+(?:this|the\s+current|now|the\s+latest)\b|\blast\s+boot\s+before\b|\bbefore\s+(?:the\s+)?(?:last\s+|latest\s+)?re-?boot/.test(t)) {
    return { boot: -1, label: label(-1) };
  }
  if (/\b(?:this|the\s+current|current)\s+boot\b/.test(t)) return { boot: 0, label: label(0) };
  return null;
}
