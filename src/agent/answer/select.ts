/**
 * Selections over facts (seam §1 `ask`, §4 `selection`): a part that asks
 * "how many X", "which X", "is NAME among them" or "show the lines" is
 * answered by selecting from the lists its facts hold, not by the facts'
 * summary sentences.
 *
 * Why here, in the agent, and not in the renderer: coverage (coverage.ts)
 * must know before the answer step whether the facts can answer the
 * selection at all (else the part is partial), and the renderer must say the
 * same selection; both call this one function, so what is decided and what
 * is said cannot drift apart.
 *
 * The `noun` of an ask is one word of a closed list; each names the list
 * fields of the shipped schemas that hold such things (`LISTS`), and for a
 * schema not in the table the first list of objects carrying one of the
 * noun's name keys. A list the tool cut short (`bounded`: the 20 busiest
 * processes) can say "at least" and "not among those read", never "none".
 * Every value returned comes from a fact (T1): the caller quotes it.
 */

import { narrow } from './filters.js';

export const NOUNS = ['process', 'unit', 'package', 'file', 'folder', 'filesystem', 'interface', 'line', 'error', 'boot'] as const;
export type Noun = (typeof NOUNS)[number];

/** The kinds of ask that select from facts; `state` and `why` speak of the facts as a whole. */
export const SELECTING = ['list', 'count', 'member', 'show'] as const;

export interface Ask {
  kind: string;
  name?: string;
  noun?: string;
}

/** One list field of a schema that holds things of a noun. */
interface ListField {
  field: string;
  /** the item keys that name an item, first present wins */
  name: string[];
  /** a field of the fact that counts every such thing, beyond what the list holds */
  total?: string;
  /** the tool keeps only the first N: an absent item may still exist */
  bounded?: boolean;
  /** the things in words, one and many */
  label: [string, string];
  /** what the total counts, in words, when it counts more than the list's things (threads beside processes) */
  totalLabel?: [string, string];
}

const LISTS: Record<Noun, Record<string, ListField>> = {
  process: {
    'load_processes@1': { field: 'processes', name: ['command'], total: 'tasks', bounded: true, label: ['process', 'processes'], totalLabel: ['task (a process or a thread)', 'tasks (processes and their threads)'] },
  },
  unit: {
    'failed_units@1': { field: 'units', name: ['unit'], total: 'failed_count', label: ['failed unit', 'failed units'] },
  },
  package: {
    'upgradable_packages@1': { field: 'packages', name: ['name'], total: 'count', label: ['upgradable package', 'upgradable packages'] },
  },
  file: {
    'prune_result@1': { field: 'removed', name: ['file'], total: 'removed_count', label: ['removed file', 'removed files'] },
  },
  folder: {},
  filesystem: {
    'disk_usage@1': { field: 'filesystems', name: ['mount', 'filesystem'], label: ['mounted filesystem', 'mounted filesystems'] },
  },
  interface: {
    'network@1': { field: 'interfaces', name: ['name'], label: ['network interface', 'network interfaces'] },
  },
  line: {
    'log_lines@1': { field: 'lines', name: ['text'], total: 'lines_read', bounded: true, label: ['line', 'lines'] },
  },
  error: {
    'log_lines@1': { field: 'failures', name: ['text'], total: 'failure_count', bounded: true, label: ['failure line', 'failure lines'] },
  },
  boot: {},
};

// for a schema the table does not know: the keys that name an item of each noun
const NAME_KEYS: Record<Noun, string[]> = {
  process: ['command', 'process', 'comm'], unit: ['unit'], package: ['package', 'name'], file: ['file', 'path'], folder: ['path', 'dir'],
  filesystem: ['mount', 'filesystem'], interface: ['interface', 'ifname'], line: ['text', 'line', 'message'], error: ['text', 'message'], boot: ['boot', 'boot_id'],
};
const PLURAL: Record<Noun, string> = {
  process: 'processes', unit: 'units', package: 'packages', file: 'files', folder: 'folders', filesystem: 'filesystems',
  interface: 'interfaces', line: 'lines', error: 'failure lines', boot: 'boots',
};

export interface SelectFact {
  step: string;
  seq: number;
  schema: string;
  fact: unknown;
}

/** What a selection found: the ask, the field read, its result, the facts it came from, and whether it is whole. */
export interface Selection {
  kind: string;
  name?: string;
  noun?: string;
  /** `schema.field` of the list read */
  field: string;
  /** count: a number; list and show: the items' names or lines; member: whether the name is among them */
  result: number | boolean | string[];
  /** the items the result speaks of (member: the one found; list/show: those listed) */
  items: Record<string, unknown>[];
  /** the list's things in words, one and many */
  label: [string, string];
  /** what `total` counts, when it is not the list's things */
  totalLabel?: [string, string];
  /** how many the list holds, and how many exist when the fact counts them */
  listed: number;
  total: number | null;
  /** false when the list was cut short, so the result is a lower bound (count) or not a no (member) */
  whole: boolean;
  /** the narrowings the owner's words made ("security", "state down", "used percent above 80%", "top 5"): schema keys and the owner's words only */
  where?: string[];
  from: { step: string; seq: number }[];
}

const obj = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
const isNoun = (n: unknown): n is Noun => typeof n === 'string' && (NOUNS as readonly string[]).includes(n);

/** The list of `noun` things a fact holds, or null when it holds none. */
function listIn(noun: Noun, schema: string, fact: Record<string, unknown>): (ListField & { items: Record<string, unknown>[] }) | null {
  const known = LISTS[noun][schema];
  if (known) {
    const v = fact[known.field];
    return Array.isArray(v) ? { ...known, items: v.map(obj).filter((x): x is Record<string, unknown> => x !== null) } : null;
  }
  for (const [field, v] of Object.entries(fact)) {
    if (!Array.isArray(v) || v.length === 0) continue;
    const items = v.map(obj).filter((x): x is Record<string, unknown> => x !== null);
    const keys = NAME_KEYS[noun].filter((k) => items.some((i) => typeof i[k] === 'string'));
    if (keys.length) return { field, name: keys, items, label: [noun, PLURAL[noun]] };
  }
  return null;
}

/** An item's name: its first name key that holds a string. */
export function itemName(item: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const k of keys) if (typeof item[k] === 'string' && (item[k] as string).length) return item[k] as string;
  return null;
}

/** The ways a name can stand in a list: "nginx.service" is "nginx"; "/usr/bin/python3 app.py" is "python3". */
export function nameForms(s: string): string[] {
  const lower = s.toLowerCase().trim();
  const head = lower.split(/[\s:]+/)[0] ?? lower;
  const base = head.split('/').filter(Boolean).pop() ?? head;
  return [...new Set([lower, head, base].flatMap((x) => [x, x.replace(/\.(?:service|socket|timer)$/, '')]).filter((x) => x.length > 0))];
}

/** Whether an item named `have` is the thing named `want`. */
export function sameName(want: string, have: string): boolean {
  const w = nameForms(want);
  return nameForms(have).some((h) => w.includes(h));
}

/** Whether an ask selects from the facts: a count or a list of a known noun, a name among them, the lines. */
export function selects(ask: Ask | undefined): boolean {
  if (!ask || !(SELECTING as readonly string[]).includes(ask.kind)) return false;
  return ask.kind === 'show' || (ask.kind === 'member' && !!ask.name) || isNoun(ask.noun);
}

/**
 * The selection a part's ask makes from its facts, or null when the ask selects nothing (state,
 * why) or no fact holds a list of its noun (or, for member, a list the name could be in). `text`,
 * the part's own words, narrows a count, a list or the lines (filters.ts): "security updates",
 * "interfaces that are down", "above 80%", "the top 5".
 */
export function select(ask: Ask | undefined, facts: readonly SelectFact[], text = ''): Selection | null {
  if (!selects(ask) || !ask) return null;
  const noun: Noun | null = isNoun(ask.noun) ? ask.noun : ask.kind === 'show' ? 'line' : null;
  const nouns: Noun[] = noun ? [noun] : ask.kind === 'member' ? [...NOUNS] : [];
  let miss: Selection | null = null;
  for (const n of nouns) {
    for (const f of facts) {
      const fact = obj(f.fact);
      const list = fact ? listIn(n, f.schema, fact) : null;
      if (!fact || !list) continue;
      const totalRaw = list.total !== undefined ? fact[list.total] : undefined;
      const total = typeof totalRaw === 'number' && Number.isInteger(totalRaw) ? totalRaw : null;
      const whole = total !== null ? total <= list.items.length : !list.bounded;
      const base = { kind: ask.kind, ...(ask.name ? { name: ask.name } : {}), noun: n, field: `${f.schema}.${list.field}`, label: list.label, ...(list.totalLabel ? { totalLabel: list.totalLabel } : {}), listed: list.items.length, total, whole, from: [{ step: f.step, seq: f.seq }] };
      if (ask.kind !== 'member') {
        // the owner's own words narrow what is counted or listed (a count is then of what the list holds)
        const lines = n === 'line' || n === 'error';
        const f = narrow(list.items, text, [...list.name], ask.kind !== 'count', lines);
        // lines cut only to "the last N" are still the last N of all those read
        const onlyCut = lines && f.words.every((w) => /^(?:first|last) \d+$/.test(w));
        const narrowed = f.words.length > 0 ? { field: `${base.field}[${f.words.join('; ')}]`, where: f.words, total: onlyCut ? total : null, whole: !list.bounded || f.limited } : {};
        const names = f.items.map((i) => itemName(i, list.name)).filter((x): x is string => x !== null);
        if (ask.kind === 'count') return { ...base, ...narrowed, result: f.words.length ? f.items.length : total ?? f.items.length, items: [] };
        return { ...base, ...narrowed, result: names, items: f.items };
      }
      if (!ask.name) continue;
      const hit = list.items.filter((i) => { const nm = itemName(i, list.name); return nm !== null && sameName(ask.name!, nm); });
      // a member ask without a noun reads the first list that holds the name, else the first list at all
      if (hit.length === 0 && !noun) { miss ??= { ...base, result: false, items: [] }; continue; }
      return { ...base, result: hit.length > 0, items: hit };
    }
  }
  return miss;
}

/** Whether a selection answers its ask in full: a count, list or no from a list cut short does not. */
export function selectionWhole(s: Selection): boolean {
  if (s.kind === 'member') return s.result === true || s.whole;
  if (s.kind === 'count') return s.total !== null || s.whole;
  return true;
}
