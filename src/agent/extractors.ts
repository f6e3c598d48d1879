/**
 * Named deterministic extractors: the values a playbook's argument slots take
 * from the operator's goal (T0), by rule and never by model — a systemd
 * unit, a path, a time window, a log priority, a sort order.
 *
 * Each extractor returns the value in the form the shipped tools' input
 * schemas accept (`nginx.service`, `/var/log/syslog`, `2 hours ago`, `err`)
 * or null when the goal does not name one; a playbook decides whether a slot
 * without a value drops the argument, takes a default, or rules the playbook
 * out. The vocabulary is closed: an unknown extractor name in a playbook is a
 * manifest error (playbooks.ts), not a silent null.
 */

export const EXTRACTORS = ['unit', 'path', 'since', 'priority', 'sort', 'keep', 'boot', 'port'] as const;
export type ExtractorName = (typeof EXTRACTORS)[number];

/**
 * What the goal reader (goal/) found in one part of a goal, as the planner's context carries it:
 * when present, a slot takes its value from here (units with their case, windows such as "the past
 * half hour", counts to keep), and the rules below are not used.
 */
export interface SlotEntities {
  unit: string | null;
  path: string | null;
  since: string | null;
  boot: number | null;
  priority: string | null;
  sort: string | null;
  keep: number | null;
  port: number | null;
}

/** A slot's value from the reader's entities (a boot window leaves `since` empty, and the reverse). */
export function fromEntities(name: ExtractorName, e: SlotEntities): string | number | null {
  return e[name];
}

const UNIT_SUFFIX = /\b([A-Za-z0-9][A-Za-z0-9@._:-]*\.(?:service|socket|timer|mount|target|path|slice|scope))\b/;
const UNIT_PHRASE = /\b(?:the\s+)?([a-z0-9][a-z0-9@_-]{1,60})\s+(?:service|daemon|unit)\b/i;
const UNIT_STOP = new Set(['a', 'the', 'this', 'that', 'my', 'which', 'every', 'any', 'some', 'failed', 'systemd', 'each', 'one', 'web', 'system']);
// "is nginx running", "mosquitto keeps crashing", "why did cron stop", "status of docker": a
// service named by what it does. The word must look like a unit name, and the closed list below
// (the machine itself, its parts, pronouns, question words, the words for services in general)
// is never read as one, so "is the pi running hot" names no unit.
const UNIT_VERB = /\b([a-z][a-z0-9@_.-]{1,60})\s+(?:(?:is|was|has|have|keeps?|kept|been|still|not|never|always|won'?t|doesn'?t|does|didn'?t|did|isn'?t|wasn'?t|to)\s+)*(?:running|crash(?:es|ed|ing)?|restart(?:s|ed|ing)?|stop(?:s|ped|ping)?|start(?:s|ed|ing)?|die[sd]?|dying|fail(?:s|ed|ing)?|down|active|alive|working|responding)\b/gi;
const UNIT_STATUS_OF = /\bstatus\s+of\s+(?:the\s+|my\s+)?([a-z][a-z0-9@_.-]{1,60})/gi;
const UNIT_STATUS = /\b([a-z][a-z0-9@_.-]{1,60})\s+status\b/gi;
const UNIT_NOT = new Set([
  ...UNIT_STOP, 'an', 'these', 'those', 'your', 'our', 'its', 'it', 'he', 'she', 'they', 'what', 'who', 'why', 'how', 'when', 'where', 'there', 'here', 'now',
  'everything', 'anything', 'something', 'nothing', 'all', 'not', 'and', 'or', 'but', 'still', 'never', 'why', 'pi', 'raspberry', 'machine', 'computer',
  'box', 'server', 'host', 'board', 'device', 'disk', 'drive', 'card', 'sd', 'network', 'wifi', 'internet', 'cpu', 'fan', 'memory', 'ram', 'swap',
  'service', 'services', 'unit', 'units', 'daemon', 'daemons', 'process', 'processes', 'script', 'job', 'program', 'app', 'application', 'load',
  'temperature', 'screen', 'display', 'log', 'logs', 'journal', 'boot', 'reboot', 'kernel', 'update', 'updates', 'upgrade', 'keeps', 'keep', 'is', 'was',
  'did', 'does', 'has', 'been', 'to', 'be', 'of', 'in', 'on', 'at', 'for', 'with', 'from', 'after', 'before', 'since', 'system', 'health', 'file',
]);
const PATH = /(?:^|[\s"'`(])((?:\/[A-Za-z0-9._@%+~-]+)+\/?)/;
const WORD_NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, ten: 10, twelve: 12, fifteen: 15, thirty: 30 };
const UNITS: Record<string, string> = { minute: 'min', minutes: 'min', min: 'min', mins: 'min', hour: 'hours', hours: 'hours', h: 'hours', day: 'days', days: 'days', week: 'weeks', weeks: 'weeks' };

/** Run one named extractor over the goal (keep, boot and port are read by the goal reader only). */
export function extract(name: ExtractorName, goal: string): string | null {
  switch (name) {
    case 'keep': return null;
    case 'boot': return null;
    case 'port': return null;
    case 'unit': return unitIn(goal);
    case 'path': return pathIn(goal);
    case 'since': return sinceIn(goal);
    case 'priority': return priorityIn(goal);
    case 'sort': return sortIn(goal);
  }
}

/** `nginx.service` written out, "the nginx service", or a service named by its state ("is nginx running", "status of cron") → `nginx.service`. */
function unitIn(goal: string): string | null {
  const full = UNIT_SUFFIX.exec(goal);
  if (full) return full[1]!;
  const phrase = UNIT_PHRASE.exec(goal);
  if (phrase && !UNIT_STOP.has(phrase[1]!.toLowerCase())) return `${phrase[1]!.toLowerCase()}.service`;
  const named = [UNIT_STATUS_OF, UNIT_STATUS, UNIT_VERB].flatMap((re) => [...goal.matchAll(re)].map((m) => m[1]!));
  for (const n of named) {
    const word = n.toLowerCase().replace(/[.-]+$/, '');
    if (word.length >= 2 && !UNIT_NOT.has(word)) return `${word}.service`;
  }
  return null;
}

/** The first absolute path in the goal, trailing punctuation dropped. */
function pathIn(goal: string): string | null {
  const m = PATH.exec(goal);
  if (!m) return null;
  const p = m[1]!.replace(/[.,;:!?)]+$/, '');
  return p.length > 1 ? p.replace(/\/$/, '') : p;
}

/** "in the last 2 hours", "since yesterday", "today", "in the past 30 minutes" → a journalctl --since form. */
function sinceIn(goal: string): string | null {
  const g = goal.toLowerCase();
  const span = /\b(?:last|past|previous)\s+(\d+|an?|one|two|three|four|five|six|ten|twelve|fifteen|thirty)?\s*(minutes?|mins?|hours?|h|days?|weeks?)\b/.exec(g);
  if (span) {
    const n = span[1] === undefined ? 1 : /^\d+$/.test(span[1]) ? Number(span[1]) : WORD_NUMBERS[span[1]] ?? 1;
    return `${n} ${UNITS[span[2]!]} ago`;
  }
  if (/\b(?:since|from)\s+yesterday\b|\byesterday\b/.test(g)) return 'yesterday';
  if (/\btoday\b|\bthis morning\b/.test(g)) return 'today';
  if (/\b(?:since|after)\s+(?:the\s+)?(?:last\s+)?(?:boot|reboot|restart)\b/.test(g)) return null;
  return null;
}

/** "errors" → err, "warnings" → warning, "critical" → crit. */
function priorityIn(goal: string): string | null {
  const g = goal.toLowerCase();
  if (/\b(?:critical|crit|emergenc(?:y|ies)|panic)\b/.test(g)) return 'crit';
  if (/\berr(?:or|ors)?\b|\bfail(?:s|ed|ing|ures?)?\b/.test(g)) return 'err';
  if (/\bwarn(?:ing|ings)?\b/.test(g)) return 'warning';
  return null;
}

/** "memory" / "RAM" → mem, else cpu when the goal speaks of CPU or load. */
function sortIn(goal: string): string | null {
  const g = goal.toLowerCase();
  if (/\b(?:memory|ram|mem|swap|oom)\b/.test(g)) return 'mem';
  if (/\b(?:cpu|load|busy|slow|hog)\b/.test(g)) return 'cpu';
  return null;
}
