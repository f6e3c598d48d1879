/**
 * Doctor checks of the root folder: free disk under it (against the
 * settings' low_disk_mb), and that it and the folders the daemon writes are
 * there, owned by the root's owner (a folder made by `sudo pico …` as root
 * is one the service cannot write), writable by that owner, and that
 * sessions/rejected/ — which keeps refused job files, whatever they held —
 * is private (0700). It reads modes and owners; it changes nothing.
 */
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { loadSettings, defaultSettings } from '../daemon/settings.js';
import { freeSpace, humanBytes } from '../status/disk.js';
import { ok, type Check } from './check.js';

/** Free space under the root against low_disk_mb. */
export function diskCheck(root: string): Check {
  let lowMb = defaultSettings().low_disk_mb;
  try {
    lowMb = loadSettings(root).settings.low_disk_mb;
  } catch {
    // the settings check of pico status reports a broken file; the default threshold is used here
  }
  const free = freeSpace(root);
  if (!free) return { group: 'disk', name: 'free space', level: 'warn', detail: `cannot read the free space of ${root}`, fix: 'make sure the root exists and is on a mounted filesystem' };
  const detail = `${humanBytes(free.free_bytes)} free of ${humanBytes(free.total_bytes)} under ${root} (warns below low_disk_mb ${lowMb} MiB)`;
  if (free.free_bytes >= lowMb * 1024 * 1024) return ok('disk', 'free space', detail);
  return { group: 'disk', name: 'free space', level: free.free_bytes < 16 * 1024 * 1024 ? 'fail' : 'warn', detail, fix: `free space on that filesystem (\`pico gc --older-than 30d --root ${root}\` removes old finished sessions); a full disk pauses every job` };
}

const FOLDERS: { rel: string; why: string; privateMode?: boolean }[] = [
  { rel: 'manifests', why: 'providers and tools' },
  { rel: 'sessions', why: 'every job\'s state' },
  { rel: 'sessions/inbox', why: 'submitted jobs' },
  { rel: 'sessions/rejected', why: 'refused job files', privateMode: true },
  { rel: 'memory', why: 'the memory index' },
];

function stat(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** The root and its folders: present, one owner, writable by it; rejected/ private. */
export function rootChecks(root: string): Check[] {
  const st = stat(root);
  if (!st || !st.isDirectory()) return [{ group: 'root', name: root, level: 'fail', detail: 'not a folder', fix: `make one with \`pico init ${root}\`` }];
  const out: Check[] = [];
  const me = process.getuid?.() ?? -1;
  out.push(me === st.uid || me === 0
    ? ok('root', root, `owned by uid ${st.uid}, mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}`)
    : { group: 'root', name: root, level: 'warn', detail: `owned by uid ${st.uid}, and this is uid ${me}: commands that write (run, submit, cancel, …) refuse`, fix: `run them as the owner (sudo -u '#${st.uid}' pico …), or as a member of the picoharness group for read-only commands` });
  for (const f of FOLDERS) {
    const path = join(root, f.rel);
    const s = stat(path);
    if (!s) {
      out.push({ group: 'root', name: f.rel, level: 'warn', detail: `missing (${f.why})`, fix: f.rel === 'manifests' ? `\`pico init ${root}\` adds the shipped defaults` : 'the daemon makes it on start' });
      continue;
    }
    const mode = (s.mode & 0o777).toString(8).padStart(4, '0');
    if (s.uid !== st.uid) {
      out.push({ group: 'root', name: f.rel, level: 'fail', detail: `owned by uid ${s.uid}, the root by uid ${st.uid}: the daemon cannot write it`, fix: `chown -R ${st.uid} ${path}` });
      continue;
    }
    if ((s.mode & 0o200) === 0 || (me === s.uid && !writable(path))) {
      out.push({ group: 'root', name: f.rel, level: 'fail', detail: `mode ${mode}: not writable by its owner`, fix: `chmod u+rwx ${path}` });
      continue;
    }
    if (f.privateMode && (s.mode & 0o077) !== 0) {
      out.push({ group: 'root', name: f.rel, level: 'warn', detail: `mode ${mode}: others can read refused job files`, fix: `chmod 700 ${path}` });
      continue;
    }
    out.push(ok('root', f.rel, `uid ${s.uid}, mode ${mode}`));
  }
  return out;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
