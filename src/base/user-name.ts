/**
 * Names of numeric user and group ids, read from /etc/passwd and /etc/group.
 *
 * Who wrote a file is what the kernel says (its owner's uid), never what the
 * file says; this turns that uid into the name a person knows, for a
 * decision's `by`, a refusal or a command's advice. A dynamic systemd user
 * has no line there: then the caller shows the number. It reads; it never
 * asks NSS or the network.
 */
import { readFileSync } from 'node:fs';

/** The name of numeric id `id` in a colon-separated database (/etc/passwd, /etc/group: name, password, id, …), or null. */
function nameIn(file: string, id: number): string | null {
  try {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const [name, , field] = line.split(':');
      if (name && field !== '' && Number(field) === id) return name;
    }
  } catch {
    // no such file: only the number is known
  }
  return null;
}

/** The login name of `uid` from /etc/passwd, or null (a dynamic systemd user, say). */
export function userName(uid: number): string | null {
  return nameIn('/etc/passwd', uid);
}

/** The group name of `gid` from /etc/group, or null. */
export function groupName(gid: number): string | null {
  return nameIn('/etc/group', gid);
}
