/**
 * How a folder can be watched: by the kernel's change events, or only by polling.
 *
 * inotify (what chokidar's event mode rests on, through fs.watch) hears only
 * what this kernel does to a folder. On a network filesystem (NFS, SMB/CIFS,
 * Ceph, 9p, AFS) or a FUSE one (sshfs, rclone, s3fs), a file written by
 * another machine or by the FUSE daemon itself raises no event here: a NAS
 * feeding a Pi's inbox would be heard only by the slow safety rescan. So the
 * filesystem type (statfs's magic number) decides: those are polled (a stat
 * of the folder every `watch_poll_ms`), everything else uses events, and the
 * `watch` setting (settings.json: "auto", "events" or "polling") overrides
 * the guess. This module only decides and names; the watchers are spool.ts
 * and manifest-watch.ts.
 */
import { statfsSync } from 'node:fs';

export type WatchMode = 'auto' | 'events' | 'polling';

/** statfs f_type of filesystems whose changes may come from elsewhere (linux/magic.h and the filesystems' own headers). */
const ELSEWHERE: ReadonlyMap<number, string> = new Map([
  [0x6969, 'nfs'],
  [0x517b, 'smb'],
  [0xff534d42, 'cifs'],
  [0xfe534d42, 'smb2'],
  [0x65735546, 'fuse'],
  [0x01021997, '9p'],
  [0x00c36400, 'ceph'],
  [0x5346414f, 'afs'],
  [0x6b414653, 'afs'],
  [0x73757245, 'coda'],
  [0x0bd00bd0, 'lustre'],
  [0x47504653, 'gpfs'],
  [0x564c, 'ncp'],
]);

/** The name of `dir`'s filesystem when it is a network or FUSE one, else null (also when it cannot be told). */
export function sharedFilesystem(dir: string): string | null {
  try {
    return ELSEWHERE.get(Number(statfsSync(dir).type) >>> 0) ?? null;
  } catch {
    return null;
  }
}

/** Whether to poll `dir`, and why, for the setting `mode`. */
export function pollingFor(dir: string, mode: WatchMode): { polling: boolean; why: string } {
  if (mode === 'polling') return { polling: true, why: 'settings.json "watch": "polling"' };
  if (mode === 'events') return { polling: false, why: 'settings.json "watch": "events"' };
  const fs = sharedFilesystem(dir);
  return fs ? { polling: true, why: `${dir} is on a ${fs} filesystem, whose changes from elsewhere raise no event here` } : { polling: false, why: 'a local filesystem' };
}
