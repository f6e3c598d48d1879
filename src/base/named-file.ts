/**
 * A JSON file a person names on the command line (a job file for `pico run`,
 * `pico submit`, `pico fleet submit`), read with its problems said in words.
 *
 * Why: each command read the file its own way, and a person who mistyped the
 * path met errno — "cannot read the job as JSON (ENOENT…)", "(EISDIR…)", or
 * "ends in the middle of a value" for an empty file. One reader says "no such
 * file", "is a folder, not a job file", "is empty", names a syntax error by
 * line and column (src/base/strict-json.ts, which also refuses a key given
 * twice and never quotes the text), and a byte that is not UTF-8 by its
 * offset. The caller checks the value (a job: parseJob) and decides the exit
 * code; everything here is the person's mistake.
 */
import { readFileSync } from 'node:fs';
import { describeDuplicate, parseJsonStrict } from './strict-json.js';
import { decodeUtf8Strict, UTF8_FIX } from './utf8.js';

export type NamedJson = { value: unknown; bytes: Buffer } | { problem: string; fix: string };

/** Why a file a person named could not be read, in words: "no such file", "is a folder, not a job file", … */
export function unreadable(file: string, err: unknown, what: string): { problem: string; fix: string } {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return { problem: `${file}: no such file`, fix: `check the path of the ${what}` };
  if (code === 'EISDIR') return { problem: `${file} is a folder, not a ${what}`, fix: `name one ${what} in it` };
  if (code === 'ENOTDIR') return { problem: `${file}: no such file (a part of the path is a file, not a folder)`, fix: `check the path of the ${what}` };
  if (code === 'EACCES' || code === 'EPERM') return { problem: `${file} may not be read by this user (permission denied)`, fix: 'run as a user who may read it, or make it readable' };
  return { problem: `${file} cannot be read (${code ?? (err as Error).message})`, fix: `check the path of the ${what}` };
}

/** Read `file` as one UTF-8 JSON value; `what` names it in the words ("job file"), `maxBytes` caps it. */
export function readNamedJson(file: string, what: string, maxBytes: number): NamedJson {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    return unreadable(file, err, what);
  }
  if (bytes.length > maxBytes) return { problem: `${file} is ${bytes.length} bytes, over the ${maxBytes}-byte limit of a ${what}`, fix: 'a job names its inputs by path (tool args); do not inline large data' };
  const decoded = decodeUtf8Strict(bytes);
  if ('problem' in decoded) return { problem: `${file}: ${decoded.problem}`, fix: UTF8_FIX };
  if (decoded.text.trim() === '') return { problem: `${file} is empty`, fix: `write the ${what} into it: one JSON object` };
  const parsed = parseJsonStrict(decoded.text);
  if ('problem' in parsed) return { problem: `${file}: ${parsed.problem.replace(/^it is not JSON: /, 'not valid JSON: ')}`, fix: 'fix the JSON syntax there' };
  if ('duplicates' in parsed) return { problem: `${file}: ${parsed.duplicates.map(describeDuplicate).join('; ')}`, fix: 'give each key once' };
  return { value: parsed.value, bytes };
}
