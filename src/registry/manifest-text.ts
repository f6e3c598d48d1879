/**
 * A manifest means one thing: its bytes are read safely, are UTF-8, are JSON
 * with no key given twice, and no two files claim one id.
 *
 * Why: JSON.parse keeps the last of two equal keys, so a tool manifest with
 * `"effect": "destructive"` then `"effect": "read_only"` loaded as read-only
 * (no approval) while a person reading it saw destructive; a Latin-1 byte
 * became U+FFFD without a word; two schema files with one `$id` left the
 * later one in force silently; and one provider could serve a control
 * capability (plan, route: it decides what runs) and a data capability
 * (reading T1 text) at once, which is the one path P7 closes. The loader
 * (load.ts) calls these and turns each refusal into an issue naming the file
 * (both files, both lines) and the fix.
 *
 * It reads and checks; loading and registering are load.ts's.
 */
import { describeDuplicate, parseJsonStrict } from '../base/strict-json.js';
import { readPlanted, rootRules, UnsafeFileError } from '../base/safe-open.js';
import { decodeUtf8Strict } from '../base/utf8.js';

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
  let bytes: Uint8Array;
  try {
    const f = readPlanted(rootRules(root), file, { maxBytes: MANIFEST_MAX_BYTES, what: 'manifest' });
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

/** An id two files declare: the issue for the second, naming the first. */
export function duplicateId(kind: string, id: string, first: string, second: string): TextIssue {
  return { file: second, path: '', message: `${kind} id "${id}" is declared twice: in ${first} and again in ${second}`, fix: 'ids must be unique; rename or remove one of the two files' };
}

/**
 * A provider serving a control capability and a data capability at once: one issue per such
 * provider. `control(cap)` says whether a capability is a control one (undefined: unknown, skipped).
 */
export function mixedServing(providers: readonly { id: string; implements: readonly string[] }[], control: (cap: string) => boolean | undefined, fileOf: (id: string) => string): TextIssue[] {
  const out: TextIssue[] = [];
  for (const p of providers) {
    const ctl = p.implements.filter((c) => control(c) === true);
    const data = p.implements.filter((c) => control(c) === false);
    if (ctl.length === 0 || data.length === 0) continue;
    out.push({
      file: fileOf(p.id), path: 'implements',
      message: `provider "${p.id}" serves the control capabilit${ctl.length > 1 ? 'ies' : 'y'} ${ctl.join(', ')} and the data capabilit${data.length > 1 ? 'ies' : 'y'} ${data.join(', ')}; a provider that reads data must never decide what runs`,
      fix: 'split it into two providers (two manifests), one for the control capabilities and one for the data capabilities',
    });
  }
  return out;
}
