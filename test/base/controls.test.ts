/**
 * Issue 36 finding 12: "Bidirectional control characters (U+202E, U+2066 and
 * friends) in a value read from outside reach the answer unchanged and can
 * reorder the sentence on screen; the quoting strips other controls but not
 * these." The terminal-safe quoting shows them as escapes; the answer's
 * quoting drops them; a real job over a log that holds them answers without
 * them, and `pico show` prints none.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defang, visible, visibleText } from '../../src/base/log-pretty.js';
import { quote } from '../../providers/answer/words.js';
import { picoAsync as pico } from '../daemon/spawn.js';
import { makeRoot } from '../helpers/root.js';

/** Every character that changes the direction or order of text on screen without being seen. */
const BIDI = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
const ANY_BIDI = new RegExp(`[${BIDI.join('')}]`);
/** Text of other scripts is data, not control: it stays as it is. */
const PLAIN = 'é ü 中文 עברית العربية 🙂 tab-free';

describe('bidirectional controls', () => {
  it('the terminal-safe quoting shows every bidirectional control as an escape and leaves other scripts alone', () => {
    for (const c of [...BIDI, '\u2028', '\u2029']) {
      const shown = visible(`a${c}b`);
      expect(shown).toBe(`a\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}b`);
      expect(visibleText(`x\n${c}y`)).toBe(`x\n\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}y`);
    }
    expect(visible(PLAIN)).toBe(PLAIN);
    expect(JSON.stringify(defang({ [`k\u202e`]: [`v\u2066`] }))).not.toMatch(ANY_BIDI);
  });

  it('the answer\'s quoting drops them, so a quoted value cannot reorder the sentence around it', () => {
    const q = quote(`evil\u202e txt.exe\u2066 \u200fdone`);
    expect(q).not.toMatch(ANY_BIDI);
    expect(q).toBe('"evil txt.exe done"');
    expect(quote(PLAIN)).toBe(`"${PLAIN}"`);
  });

  it('a log line holding them is answered without them, and pico show prints none', async () => {
    const root = makeRoot('pico-bidi-');
    const log = join(root, 'examples', 'data', 'syslog.txt');
    writeFileSync(log, readFileSync(log, 'utf8').replace('Failed to write entry', 'Failed \u202eto write\u2066 entry\u2069\u200f'));
    const run = await pico(['run', join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--root', root, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const id = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const result = JSON.parse(readFileSync(join(root, 'sessions', id, 'result.json'), 'utf8')) as { answer: string };
    expect(result.answer).toContain('"Failed to write entry');
    expect(result.answer).not.toMatch(ANY_BIDI);
    const show = await pico(['show', id, '--root', root]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(ANY_BIDI);
    expect(show.stdout).toContain('\\u202e'); // the tool's output still says what the log held, as an escape
  }, 120_000);
});
