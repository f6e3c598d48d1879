/**
 * A named thing must be named by the read that answers it (seam §8).
 *
 * "Is nginx running" is answered by nginx's unit state, nginx's processes,
 * nginx's log lines — never by a read of the whole journal that does not
 * mention it, however clean. Why a rule of its own: when the unit state
 * cannot be read (no systemd, no such unit) the plan's other reads still
 * succeed, and without this the part would count as answered by them.
 *
 * The name a part asks about is the ask's `name` when the goal reader gave
 * one, else the one unit, path, process or package its own checks were given
 * (the planner passes a unit or path only when the goal names it). A fact
 * speaks of the name when the check that made it was given that name, or
 * when the fact holds it as a value (a unit field, a process's command, a
 * path) — read as data, compared, never followed.
 */
import { nameForms, sameName } from './select.js';

/** Argument keys that name the thing a check is about. */
const NAMING_KEYS = ['unit', 'path', 'name', 'process', 'package', 'service'];

/** The one name a part's checks were given, or null when they name none or several. */
export function namedByArgs(args: readonly Record<string, unknown>[]): string | null {
  const names = new Set<string>();
  for (const a of args) for (const k of NAMING_KEYS) if (typeof a[k] === 'string' && (a[k] as string).length) names.add(a[k] as string);
  if (names.size !== 1) return null;
  return [...names][0]!;
}

/** Whether a check given `args` that produced `fact` speaks of `name`. */
export function speaksOf(name: string, args: Record<string, unknown>, fact: unknown): boolean {
  for (const k of NAMING_KEYS) {
    const v = args[k];
    if (typeof v === 'string' && sameName(name, v)) return true;
  }
  const want = nameForms(name);
  let seen = 0;
  const walk = (v: unknown, depth: number): boolean => {
    if (++seen > 2000 || depth > 4) return false;
    if (typeof v === 'string') return v.length <= 4096 && nameForms(v).some((f) => want.includes(f));
    if (Array.isArray(v)) return v.some((x) => walk(x, depth + 1));
    if (typeof v === 'object' && v !== null) return Object.values(v).some((x) => walk(x, depth + 1));
    return false;
  };
  return walk(fact, 0);
}
