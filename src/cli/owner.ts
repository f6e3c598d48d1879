/**
 * One owner per root: a command that writes into a root runs as the user
 * who owns it.
 *
 * `sudo pico recall` once left memory/episodic.db owned by root, and the
 * daemon, running as the root's owner, then failed with "attempt to write a
 * readonly database". Every file a command creates belongs to whoever runs
 * it, so a command that may write (a session, the memory index and its WAL
 * files, a manifest, an inbox file) refuses to start as anyone but the owner
 * of the root (and of its sessions/ and memory/ folders), naming the user to
 * run as. Read-only commands (status, show, watch, composition, manifests)
 * are not checked. One exception: `pico submit` writes only a job file into
 * sessions/inbox/, which the daemon renames and reads but never writes, so a
 * member of the inbox's group may run it when the inbox is group-writable
 * (systemd/install.sh makes it 2770 for the group picoharness). This module
 * writes nothing and changes no ownership.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { groupName, userName } from '../base/user-name.js';
import { UsageError } from './args.js';

export { userName };

/**
 * The inbox's group, whether this process is in it and whether the inbox is group-writable (and
 * searchable); someone outside the group may not see the inbox at all: then the root's group.
 */
function inboxGroup(root: string): { gid: number; mine: boolean; writable: boolean } | null {
  let st;
  try {
    st = statSync(join(root, 'sessions', 'inbox'));
  } catch {
    try {
      st = statSync(root);
    } catch {
      return null;
    }
    return { gid: st.gid, mine: false, writable: false };
  }
  const mine = st.gid === process.getegid?.() || (process.getgroups?.() ?? []).includes(st.gid);
  return { gid: st.gid, mine, writable: (st.mode & 0o030) === 0o030 };
}

/**
 * Throw a UsageError unless this process runs as the owner of `root` (and of its state folders);
 * with `inboxGroupMay`, a member of a group-writable inbox's group passes too.
 */
export function assertRootOwner(root: string, command: string, argv: readonly string[], inboxGroupMay = false): void {
  const me = process.getuid?.();
  if (me === undefined) return; // not POSIX: no owners to keep apart
  const inbox = inboxGroupMay ? inboxGroup(root) : null;
  if (inbox?.mine && inbox.writable) return;
  for (const path of [root, join(root, 'sessions'), join(root, 'memory')]) {
    let uid: number;
    try {
      uid = statSync(path).uid;
    } catch {
      continue; // missing: the command creates it (as the root's owner) or says what is wrong
    }
    if (uid === me) continue;
    const owner = userName(uid);
    const self = userName(me) ?? `uid ${me}`;
    const who = owner ?? `uid ${uid}`;
    const sudo = owner ?? `'#${uid}'`;
    const group = inbox ? groupName(inbox.gid) ?? `gid ${inbox.gid}` : null;
    const viaGroup = !inbox || !group ? ''
      : inbox.mine ? ` (you are in the group ${group}, but ${join(root, 'sessions', 'inbox')} is not group-writable: chmod 2770 it, as systemd/install.sh does)`
      : ` Or join the group ${group}, which may submit jobs: sudo usermod -aG ${group} ${self}, then log in again.`;
    throw new UsageError(
      `${path} belongs to ${who} (uid ${uid}) but this runs as ${self} (uid ${me}); what \`pico ${command}\` writes there would belong to ${self}, ` +
      `and the daemon, running as ${who}, could no longer write it. Run it as ${who}: sudo -u ${sudo} pico ${[command, ...argv].join(' ')}${viaGroup}`,
    );
  }
}
