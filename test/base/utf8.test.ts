// Strict UTF-8 (issue 14 item 9): the offset of the first ill-formed byte, agreeing with the
// WHATWG fatal decoder on every input, including random bytes.
import { describe, expect, it } from 'vitest';
import { decodeUtf8Strict, firstInvalidUtf8 } from '../../src/base/utf8.js';

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const valid = (b: Uint8Array) => {
  try {
    fatal.decode(b);
    return true;
  } catch {
    return false;
  }
};
const bytes = (...xs: number[]) => Uint8Array.from(xs);

describe('firstInvalidUtf8', () => {
  it('names the offset of the first ill-formed sequence and passes well-formed text', () => {
    expect(firstInvalidUtf8(Buffer.from('plain ascii, ümlaut, 日本, 😀'))).toBeNull();
    expect(firstInvalidUtf8(Buffer.from([0x7b, 0x22, 0x67, 0xe9, 0x22]))).toBe(3); // a Latin-1 é
    expect(firstInvalidUtf8(bytes(0x61, 0xc0, 0xaf))).toBe(1); // overlong "/"
    expect(firstInvalidUtf8(bytes(0xed, 0xa0, 0x80))).toBe(0); // a UTF-16 surrogate
    expect(firstInvalidUtf8(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(0); // above U+10FFFF
    expect(firstInvalidUtf8(bytes(0x61, 0x62, 0xe6, 0x97))).toBe(2); // cut off at the end
    expect(firstInvalidUtf8(bytes(0x80))).toBe(0); // a continuation byte alone
  });

  it('agrees with the fatal decoder on 20,000 random byte strings', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) & 0xff;
    for (let n = 0; n < 20_000; n++) {
      const len = rnd() % 12;
      // bias toward the interesting range so multi-byte sequences are common
      const b = Uint8Array.from({ length: len }, () => (rnd() & 1 ? 0x80 | (rnd() & 0x7f) : rnd()));
      expect(firstInvalidUtf8(b) === null).toBe(valid(b));
    }
  });
});

describe('decodeUtf8Strict', () => {
  it('gives the text of well-formed bytes without a leading byte-order mark, and for a bad byte only its offset and value', () => {
    expect(decodeUtf8Strict(Buffer.from('\ufeff{"goal":"café"}'))).toEqual({ text: '{"goal":"café"}' });
    const latin1 = Buffer.concat([Buffer.from('{"goal":"caf'), bytes(0xe9), Buffer.from('"}')]);
    const r = decodeUtf8Strict(latin1);
    expect(r).toEqual({ offset: 12, problem: 'byte offset 12 (0xe9) is not valid UTF-8' });
    expect('problem' in r && r.problem).not.toMatch(/caf/);
  });

  // issue 32: node's own check answers first; it and the rule as written must agree on every text
  it('agrees with a strict decoder on many random byte strings, valid or not', () => {
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let n = 0; n < 3000; n++) {
      const len = Math.floor(next() * 12);
      const pool = [0x41, 0x7f, 0x80, 0xbf, 0xc2, 0xc0, 0xdf, 0xe0, 0xa0, 0xed, 0x9f, 0xef, 0xf0, 0x90, 0xf4, 0x8f, 0xf5, 0xff];
      const b = Uint8Array.from({ length: len }, () => pool[Math.floor(next() * pool.length)]!);
      let ok = true;
      try {
        strict.decode(b);
      } catch {
        ok = false;
      }
      expect(firstInvalidUtf8(b) === null, Buffer.from(b).toString('hex')).toBe(ok);
    }
  });
});
