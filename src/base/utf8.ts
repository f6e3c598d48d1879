/**
 * Strict UTF-8: where a byte string stops being UTF-8.
 *
 * Node's decoder replaces ill-formed bytes with U+FFFD without a word, so a
 * job whose goal held a stray Latin-1 byte ran with a goal nobody wrote. A
 * job file is operator input (T0): it is either exactly what was written or
 * it is refused, naming the byte. This checks well-formedness as the Unicode
 * standard defines it (no overlong forms, no surrogates, nothing above
 * U+10FFFF, no cut-off sequence) and decodes only what passed; it repairs
 * nothing. It is the one UTF-8 check of job files: the inbox, `pico run` and
 * `pico submit` all use it. (A lone surrogate written as a `\ud800` escape is
 * valid UTF-8 and is refused after parsing, by src/runtime/job-limits.ts.)
 */
import { isUtf8 } from 'node:buffer';

/**
 * The offset of the first byte of the first ill-formed sequence in `buf`, or null when all of it
 * is UTF-8. Node's own check (simdutf, the same rules) answers the common case at native speed;
 * only a text it refuses is walked here, to find where.
 */
export function firstInvalidUtf8(buf: Uint8Array): number | null {
  if (isUtf8(buf)) return null;
  let i = 0;
  const n = buf.length;
  while (i < n) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0; // overlong
      if (b === 0xed) hi = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90; // overlong
      if (b === 0xf4) hi = 0x8f; // above U+10FFFF
    } else return i; // a continuation byte without a lead, C0/C1 (overlong) or F5..FF
    if (i + need >= n) return i; // cut off at the end
    for (let k = 1; k <= need; k++) {
      const c = buf[i + k]!;
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return null; // (node's check refused what this walk accepts: the walk, the rule as written, decides)
}

/** A one-line description of the bad byte at `offset`, for error messages. */
export function describeInvalidUtf8(buf: Uint8Array, offset: number): string {
  return `byte offset ${offset} (0x${buf[offset]!.toString(16).padStart(2, '0')}) is not valid UTF-8`;
}

/** What to do about a job file that is not UTF-8 (the same advice at the inbox, `pico run` and `pico submit`). */
export const UTF8_FIX = 'save the job file as UTF-8 (e.g. `iconv -f LATIN1 -t UTF-8`) and submit it again';

/**
 * The text of `buf` when all of it is UTF-8 (a leading byte-order mark is dropped, as a decoder
 * does), else the problem naming the first bad byte's offset — never the bytes around it.
 */
export function decodeUtf8Strict(buf: Uint8Array): { text: string } | { problem: string; offset: number } {
  const bad = firstInvalidUtf8(buf);
  if (bad !== null) return { problem: describeInvalidUtf8(buf, bad), offset: bad };
  return { text: new TextDecoder('utf-8').decode(buf) };
}
