/**
 * One manifest file read as a user wrote it: through the one safe open (no
 * symlink on the way, a regular file of a permitted owner, within a cap),
 * strictly UTF-8 (a Latin-1 byte is refused, never turned into U+FFFD), and
 * parsed as JSON with no key given twice (JSON.parse keeps the last of two
 * equal keys, so `"effect": "destructive"` then `"read_only"` would load
 * read-only while the reader saw destructive).
 *
 * It reads and parses; what a manifest means is the registry's. Errors name
 * the reason and the fix, never the content.
 */
import { describeDuplicate, parseJsonStrict } from './strict-json.js';
import { plantedFolder, readPlanted, rootRules, UnsafeFileError, type PlantedFile } from './safe-open.js';
import { decodeUtf8Strict } from './utf8.js';

/** One problem of one manifest file (the shape of load.ts's ManifestIssue). */
export interface TextIssue {
  file: string;
  path: string;
  message: string;
  fix: string;
}

/** A manifest is a few kilobytes; a cap far above any real one. */
export const MANIFEST_MAX_BYTES = 1024 * 1024;

/** A manifest file that cannot be used as text: the reason (never its content) and the fix. */
export class ManifestReadError extends Error {
  override name = 'ManifestReadError';
  constructor(message: string, readonly fix: string) {
    super(message);
  }
}

/**
 * The text of `file` (relative to the root, e.g. "manifests/tools/x.json") read through the one
 * safe path — no symlink followed on the way, a regular file of a permitted owner, within the cap —
 * and strictly UTF-8. Throws ManifestReadError naming the reason, never quoting the content.
 */
export function readManifestText(root: string, file: string): string {
  return manifestText(() => readPlanted(rootRules(root), file, READ));
}

const READ = { maxBytes: MANIFEST_MAX_BYTES, what: 'manifest' };

/**
 * The manifests of one folder (relative to the root), each read as readManifestText reads it, the
 * way to the folder walked and checked once (base/safe-open.ts plantedFolder): `read` takes a file
 * name in it. Null when the folder is not there or is refused on the way: read file by file then,
 * which says why for each. The caller closes it.
 */
export function manifestFolder(root: string, dir: string): { read(name: string): string; close(): void } | null {
  let folder: ReturnType<typeof plantedFolder>;
  try {
    folder = plantedFolder(rootRules(root), dir);
  } catch {
    return null;
  }
  return folder && { read: (name) => manifestText(() => folder.read(name, READ)), close: folder.close };
}

function manifestText(read: () => PlantedFile | null): string {
  let bytes: Uint8Array;
  try {
    const f = read();
    if (f === null) throw new ManifestReadError('does not exist', 'add the file or remove its name from the folder');
    bytes = f.bytes;
  } catch (err) {
    if (err instanceof UnsafeFileError) throw new ManifestReadError(err.message.slice(err.file.length + 2).replace(/; [^;]*$/, ''), err.fix);
    throw err;
  }
  const d = decodeUtf8Strict(bytes);
  if ('problem' in d) throw new ManifestReadError(`is not UTF-8: ${d.problem}`, 'save the manifest as UTF-8 (e.g. `iconv -f LATIN1 -t UTF-8`)');
  return d.text;
}

/** Parse a manifest's text or bytes: its top-level object, or the issues (not UTF-8, not JSON, a key twice). */
export function manifestJson(file: string, content: string | Uint8Array): { value: Record<string, unknown> } | { issues: TextIssue[] } {
  let text: string;
  if (typeof content === 'string') text = content;
  else {
    const d = decodeUtf8Strict(content);
    if ('problem' in d) return { issues: [{ file, path: '', message: `is not UTF-8: ${d.problem}`, fix: 'save the manifest as UTF-8 (e.g. `iconv -f LATIN1 -t UTF-8`)' }] };
    text = d.text;
  }
  const r = parseJsonStrict(text);
  if ('problem' in r) return { issues: [{ file, path: '', message: `is not valid JSON: ${r.problem.replace(/^it is (not JSON: )?/, '')}`, fix: 'fix the JSON syntax at that line and column' }] };
  if ('duplicates' in r) {
    return { issues: r.duplicates.map((d) => ({ file, path: d.path, message: describeDuplicate(d), fix: `keep one "${d.key}" (JSON keeps only the last, which a reader of the file may not expect)` })) };
  }
  const v = r.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { issues: [{ file, path: '', message: 'is not valid JSON: the top level is not an object', fix: 'a manifest is one JSON object' }] };
  return { value: v as Record<string, unknown> };
}
