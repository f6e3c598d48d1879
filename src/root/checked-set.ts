/**
 * The manifests a session worker checked, kept for the next worker on the same bytes (issue 32).
 *
 * Opening a root reads every manifest file and checks each on its own: strict JSON (no key
 * twice), the manifest schema (an unknown key is an error), a playbook's steps against the tools,
 * the lexicon. For the shipped root that was a third of a new session worker's start, and the
 * files rarely change between two workers. So once a set has loaded and its schemas compiled, the
 * worker keeps what the files gave (the parsed manifests, the schemas' digests, the playbooks,
 * the lexicon's documents) under the digest of their exact texts; the next worker still reads every file, and
 * when the texts are byte for byte those of the record, under the same build, it takes the record
 * in place of checking each file again. The checks between manifests and against the filesystem
 * (a program a manifest names may have gone) are made every time, and whatever the files say
 * otherwise — one byte changed, a typo — is checked in full, with the same named errors.
 *
 * The record skips checks, so it is believed only when this user wrote it: it lives in the
 * daemon's own folder (sessions/.daemon/), is read through the one safe open (base/safe-open.ts:
 * no symlink, a regular file of one link), and must be owned by this process's user and writable
 * by no one else; its first line is the digest of the rest, so a torn or edited file is not
 * whole; and it names the code that wrote it (the build, the validating libraries' versions).
 * Anything else and the files are checked as if there were none, and a new record is written
 * once they pass. A set taken from a record compiled its schemas when it was recorded, so its
 * schemas compile on first use rather than all before the first job (runtime.ts warm).
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { replaceFileSync } from '../base/durable-file.js';
import { readPlanted, rootRules } from '../base/safe-open.js';
import type { Playbook } from '../agent/playbooks.js';
import type { LexiconDoc } from '../agent/goal/lexicon.js';
import { compileSchema } from '../ladder/schemas.js';
import type { SchemaHandle } from '../ladder/types.js';
import { finishLoad, type LoadedRoot } from '../registry/load.js';
import type { Registry } from '../registry/registry.js';
import { buildStamp } from './manifest-watch.js';

/** What a set's files gave once checked, each on its own: what checking them again would give. */
export interface CheckedSet {
  /** the parsed manifests by table and id, and the file each came from (registry/load.ts LoadedRoot) */
  documents: LoadedRoot['documents'];
  files: Record<string, string>;
  /** schema id -> sha256 of its canonical document (SchemaHandle.digest) */
  schemaDigests: Record<string, string>;
  /** playbook@1 documents by id, in file-name order */
  playbooks: Record<string, Playbook>;
  /** lexicon@1 documents by file name */
  lexicon: Record<string, LexiconDoc>;
}

/** What a set that loaded gave, to be recorded. */
export function checkedSetOf(loaded: LoadedRoot, playbooks: Record<string, Playbook>, lexicon: Record<string, LexiconDoc>): CheckedSet {
  const schemaDigests: Record<string, string> = {};
  for (const [id, h] of loaded.registry.schemas) schemaDigests[id] = h.digest;
  return { documents: loaded.documents, files: loaded.files, schemaDigests, playbooks, lexicon };
}

/**
 * Load a recorded set into `registry` as registry/load.ts loads files: the checks between
 * manifests and against the filesystem (throwing the same ManifestError), and the schemas compiled
 * unless `compile` is false. Null when a schema of the record does not compile now: the caller
 * checks the files instead.
 */
export function loadRecorded(root: string, registry: Registry, set: CheckedSet, compile: boolean): LoadedRoot | null {
  const handles: Record<string, SchemaHandle> = {};
  for (const [id, json] of Object.entries(set.documents.schemas)) {
    try {
      handles[id] = compile ? compileSchema(json, id) : { id, json, digest: set.schemaDigests[id]! };
    } catch {
      return null;
    }
  }
  return finishLoad(root, registry, set.documents, set.files, handles, []);
}

const FORMAT = 'checked-manifests@1';

/**
 * The code that checks manifests, as this process runs it: this build (manifest-watch.ts), and
 * the versions of the libraries that validate (bundled with it, or installed beside it): a record
 * of other code is never believed. Null when the build cannot be told.
 */
function checker(): string | null {
  const build = buildStamp();
  const zod = createRequire(import.meta.url)('zod/package.json') as { version: string };
  const ajv = createRequire(import.meta.url)('ajv/package.json') as { version: string };
  return build === null ? null : `${build}, zod ${zod.version}, ajv ${ajv.version}`;
}
/** Far above the record of any real set (the shipped one is some 150 kB). */
const MAX_BYTES = 64 * 1024 * 1024;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The key of a set: the digest of the exact texts it was read from (root/snapshot.ts, as JSON). */
export function checkedSetKey(snapshotText: string): string {
  return sha256(snapshotText);
}

/** The record at `file` when it holds the set of `key` under this build and this user wrote it; null otherwise. */
export function readCheckedSet(root: string, file: string, key: string): CheckedSet | null {
  const me = process.geteuid?.();
  const build = checker();
  if (me === undefined || build === null) return null;
  let text: string;
  try {
    const f = readPlanted(rootRules(root), file, { maxBytes: MAX_BYTES, what: 'record of checked manifests' });
    if (f === null || f.uid !== me || (f.mode & 0o022) !== 0) return null;
    text = f.bytes.toString('utf8');
  } catch {
    return null; // refused by the safe open (a link, another filesystem …) or unreadable: check the files
  }
  const nl = text.indexOf('\n');
  if (nl < 0 || text.slice(0, nl) !== sha256(text.slice(nl + 1))) return null;
  try {
    const v = JSON.parse(text.slice(nl + 1)) as { format?: unknown; build?: unknown; key?: unknown; set?: CheckedSet };
    if (v.format !== FORMAT || v.build !== build || v.key !== key || typeof v.set !== 'object' || v.set === null) return null;
    return v.set;
  } catch {
    return null;
  }
}

/** Keep `set` as what the texts of `key` gave; a failure only costs the next worker the shortcut. */
export function writeCheckedSet(file: string, key: string, set: CheckedSet): void {
  const build = checker();
  if (build === null) return;
  const body = JSON.stringify({ format: FORMAT, build, key, set });
  try {
    replaceFileSync(file, `${sha256(body)}\n${body}`, 0o600);
  } catch {
    // a full disk: the next worker checks the files, as without a record
  }
}
