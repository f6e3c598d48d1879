/**
 * A stat capture of one path → file_metadata@1.
 *
 * Two shapes are read: the file_stat tool's own `stat --printf` lines
 * ("key=value", the name last so a path with odd characters cannot shift the
 * other fields), and GNU stat's default report ("  File: ...", "  Size: ...",
 * "Access: (0644/-rw-r--r--)  Uid: ( 0/ root)", "Modify: ..."), as an admin
 * would paste it. Times stay exactly as stat wrote them. A field the capture
 * lacks is null; stat prints "?" or "UNKNOWN" for a name it cannot resolve,
 * and that is null too.
 */
import { int } from '../lib/single-schema.js';

export interface FileMetadata {
  path: string | null;
  type: string | null;
  size_bytes: number | null;
  mode: string | null;
  permissions: string | null;
  owner: string | null;
  group: string | null;
  uid: number | null;
  gid: number | null;
  links: number | null;
  modified_at: string | null;
  changed_at: string | null;
  accessed_at: string | null;
}

const EMPTY: FileMetadata = {
  path: null, type: null, size_bytes: null, mode: null, permissions: null, owner: null, group: null,
  uid: null, gid: null, links: null, modified_at: null, changed_at: null, accessed_at: null,
};

const known = (v: string | undefined): string | null => (v === undefined || v === '' || v === '?' || v === 'UNKNOWN' ? null : v);

/** The tool's own key=value format. */
function fromPrintf(text: string): FileMetadata {
  const kv = new Map<string, string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([a-z]+)=(.*)$/.exec(lines[i]!);
    if (!m) continue;
    // name= is last: everything after it (a name may hold a newline) belongs to it
    if (m[1] === 'name') { kv.set('name', [m[2]!, ...lines.slice(i + 1)].join('\n').replace(/\n$/, '')); break; }
    if (!kv.has(m[1]!)) kv.set(m[1]!, m[2]!);
  }
  return {
    path: known(kv.get('name')), type: known(kv.get('type')), size_bytes: int(kv.get('size')),
    mode: known(kv.get('mode')), permissions: known(kv.get('permissions')),
    owner: known(kv.get('owner')), group: known(kv.get('group')), uid: int(kv.get('uid')), gid: int(kv.get('gid')),
    links: int(kv.get('links')), modified_at: known(kv.get('modified')), changed_at: known(kv.get('changed')), accessed_at: known(kv.get('accessed')),
  };
}

/** GNU stat's default multi-line report. */
function fromDefault(text: string): FileMetadata {
  const v: FileMetadata = { ...EMPTY };
  for (const line of text.split('\n')) {
    let m: RegExpExecArray | null;
    if ((m = /^\s*File: (.*)$/.exec(line))) v.path = known(m[1]!.replace(/ -> .*$/, ''));
    else if ((m = /^\s*Size: (\d+)\s+Blocks: \d+\s+IO Block: \d+\s+(\S.*?)\s*$/.exec(line))) {
      v.size_bytes = Number(m[1]);
      v.type = m[2]!;
    } else if ((m = /Links: (\d+)/.exec(line))) v.links = Number(m[1]);
    if ((m = /^Access: \((\d+)\/(\S+)\)\s+Uid: \(\s*(\d+)\/\s*(\S+)\)\s+Gid: \(\s*(\d+)\/\s*(\S+)\)/.exec(line))) {
      v.mode = m[1]!.replace(/^0(?=\d{3})/, '');
      v.permissions = m[2]!;
      v.uid = Number(m[3]);
      v.owner = known(m[4]);
      v.gid = Number(m[5]);
      v.group = known(m[6]);
    } else if ((m = /^Access: (\d{4}-.*?)\s*$/.exec(line))) v.accessed_at = m[1]!;
    else if ((m = /^Modify: (.*?)\s*$/.exec(line))) v.modified_at = known(m[1]);
    else if ((m = /^Change: (.*?)\s*$/.exec(line))) v.changed_at = known(m[1]);
  }
  return v;
}

/** Parse one stat capture in either shape; text in neither gives every field null. */
export function parseStat(text: string): FileMetadata {
  if (/^name=/m.test(text) || /^type=/m.test(text)) return fromPrintf(text);
  if (/^\s*File: /m.test(text)) return fromDefault(text);
  return { ...EMPTY };
}
