/**
 * The inbox's ownership rule with a shared group (issue 15 item 9: members of
 * the group may submit jobs): a job file owned by another user is taken only
 * from an inbox shared with a group (group-writable, not world-writable), when
 * the file is that group's and readable by it. Judged on metadata alone.
 */
import { describe, expect, it } from 'vitest';
import { metadataProblem } from '../../src/daemon/inspect.js';

const me = process.getuid!();
const other = me === 0 ? 65534 : 0;
const SHARED = { gid: 4242, mode: 0o42770 }; // a directory, setgid, rwxrwx---

describe('who may put a job into the inbox', () => {
  it('a group-readable file of the shared inbox\'s group, written by a member, is taken', () => {
    expect(metadataProblem('a.json', { nlink: 1, uid: other, gid: 4242, mode: 0o100640 }, SHARED)).toBeNull();
  });

  it('another user\'s file is refused when the inbox is not shared (no g+w) or world-writable', () => {
    const file = { nlink: 1, uid: other, gid: 4242, mode: 0o100640 };
    expect(metadataProblem('a.json', file, { gid: 4242, mode: 0o40750 })?.problem).toMatch(/not by the daemon's user/);
    expect(metadataProblem('a.json', file, { gid: 4242, mode: 0o40777 })?.problem).toMatch(/not by the daemon's user/);
    expect(metadataProblem('a.json', file)?.fix).toMatch(/share the inbox with a group \(chmod 2770/);
  });

  it('another group\'s file in a shared inbox is refused', () => {
    expect(metadataProblem('a.json', { nlink: 1, uid: other, gid: 1, mode: 0o100640 }, SHARED)?.problem).toMatch(/not by the daemon's user/);
  });

  it('a member\'s file the group cannot read is refused unread, with the fix', () => {
    const r = metadataProblem('a.json', { nlink: 1, uid: other, gid: 4242, mode: 0o100600 }, SHARED);
    expect(r?.problem).toMatch(/not readable by the inbox's group \(gid 4242\)/);
    expect(r?.fix).toMatch(/pico submit FILE/);
  });

  it('a second hard link is refused whoever owns the file', () => {
    expect(metadataProblem('a.json', { nlink: 2, uid: me, gid: 4242, mode: 0o100640 }, SHARED)?.problem).toMatch(/2 hard links/);
  });
});
