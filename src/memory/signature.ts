/**
 * Failure signatures: the shape of an error message, without its particulars.
 *
 * "column 'user_id' not found in row 41" and "column 'host' not found in row
 * 9182" are one problem seen twice, not two incidents. Quoted strings become
 * `<q>`, paths `<path>`, numbers `#`, and runs of white space one space —
 * in that order, because a path or a quote may hold digits. It does not try to
 * understand the message; two different bugs with one shape share a row.
 */

const QUOTED = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`/g;
// absolute, home- or dot-relative POSIX paths, and Windows drive paths
const PATH = /(?:~|\.{1,2})?(?:\/[\w.@+-]+)+\/?|[A-Za-z]:\\[^\s"']+/g;
const NUMBER = /[-+]?\d+(?:[.,]\d+)*(?:e[-+]?\d+)?/gi;
const MAX_LENGTH = 240;

/** The signature of an error message (see the module comment). */
export function normaliseDetail(detail: string): string {
  const out = detail
    .replace(QUOTED, '<q>')
    .replace(PATH, '<path>')
    .replace(NUMBER, '#')
    .replace(/\s+/g, ' ')
    .trim();
  return out.length > MAX_LENGTH ? `${out.slice(0, MAX_LENGTH)}…` : out;
}
