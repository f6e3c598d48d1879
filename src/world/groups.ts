/**
 * The groups a confined program keeps when the daemon runs as root and hands
 * it to the sandbox user: only those its tool names (`read_groups`, e.g. the
 * journal's systemd-journal and adm) that exist on this machine, by number.
 *
 * Why numbers from /etc/group: setpriv fails on a name the machine lacks, and
 * a tool manifest is written for many machines (a box without the adm group
 * still runs the journal tool, with the groups it has).
 */
import { readFileSync } from 'node:fs';

/** The gids of the named groups that exist in /etc/group, in the order named; unknown names are left out. */
export function existingGroups(names: readonly string[], groupFile = '/etc/group'): number[] {
  if (names.length === 0) return [];
  let text: string;
  try {
    text = readFileSync(groupFile, 'utf8');
  } catch {
    return [];
  }
  const byName = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [name, , gid] = line.split(':');
    if (name && gid && /^\d+$/.test(gid)) byName.set(name, Number(gid));
  }
  return names.map((n) => byName.get(n)).filter((g): g is number => g !== undefined);
}
