/**
 * Issue 15 item 1: "when stdout is a terminal, lines are human-readable".
 * A log record can quote model or tool text; on a terminal such text must not
 * forge log lines of its own nor drive the terminal (colours, title, clear).
 * The formatter writes into a real file here; the daemon case runs the real
 * daemon under a pseudo-terminal made by util-linux `script`.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { logDestination, logFormat } from '../../src/base/log.js';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from '../daemon/helpers.js';
import { MAIN_JS } from '../daemon/spawn.js';
import { devIno } from './daemon-file.js';

const HOSTILE = 'answer\n{"level":50,"msg":"forged"}\n[12:00:00.000] ERROR: forged too\r\u001b[2J\u001b]0;pwned\u0007\u001b[31mred\u009b1m';

/** `text` as one single-quoted shell word. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Log `records` through the terminal destination into a file; the file's text. */
function throughTerminal(colour: boolean, write: (log: pino.Logger) => void): string {
  const dir = tempRoot('pico-tty-');
  const file = join(dir, 'out.txt');
  const fd = openSync(file, 'w');
  const log = pino({ level: 'info', base: null }, logDestination(fd, 'terminal', colour ? {} : { NO_COLOR: '1' }));
  write(log);
  closeSync(fd);
  return readFileSync(file, 'utf8');
}

describe('log lines for a person at a terminal', () => {
  it('a hostile message and hostile fields stay on their record\'s one line, with their control characters shown, not obeyed', () => {
    const text = throughTerminal(false, (log) => {
      log.warn({ reason: HOSTILE, nested: { quote: HOSTILE } }, HOSTILE);
      log.info('second record');
    });
    const lines = text.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: answer\\n\{"level":50/);
    expect(lines[0]).toContain('\\u001b[2J');
    expect(lines[1]).toMatch(/INFO: second record$/);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/); // nothing but the newlines ending records
  });

  it('with colour on, the only escape sequences are the formatter\'s own colours (SGR), never the message\'s', () => {
    const text = throughTerminal(true, (log) => log.error(HOSTILE));
    expect(text.split('\n').filter((l) => l !== '')).toHaveLength(1);
    const escapes = text.match(/\u001b[^m]*m?/g) ?? [];
    expect(escapes.length).toBeGreaterThan(0);
    for (const e of escapes) expect(e).toMatch(/^\u001b\[\d+m$/);
    expect(text).not.toContain('\u001b[2J');
    expect(text).not.toContain('\u001b]0;');
    expect(text).toContain('\\u001b]0;pwned\\u0007');
  });

  it('a file is not a terminal, and is the journal only when JOURNAL_STREAM names it', () => {
    const dir = tempRoot('pico-tty-');
    const file = join(dir, 'f');
    const fd = openSync(file, 'w');
    try {
      expect(logFormat(fd, {})).toBe('json');
      expect(logFormat(fd, { JOURNAL_STREAM: devIno(file) })).toBe('journal');
      expect(logFormat(fd, { JOURNAL_STREAM: 'garbage' })).toBe('json');
    } finally {
      closeSync(fd);
    }
  });

  const haveScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
  if (!haveScript) console.warn('util-linux `script` not found: skipping the daemon-on-a-terminal check');

  it('a logger whose stdout is not a terminal never loads pino-pretty (the daemon under systemd does not pay for it)', () => {
    const logJs = fileURLToPath(new URL('../../dist/src/base/log.js', import.meta.url));
    const probe = `import { createLogger } from ${JSON.stringify(logJs)}; import { createRequire } from 'node:module';
      createLogger({ to: 'stdout' }).info('hello');
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('pino-pretty'));
      process.stderr.write(JSON.stringify(loaded));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).msg).toBe('hello');
    expect(JSON.parse(r.stderr)).toEqual([]);
    if (!haveScript) return;
    // and the same probe does load it once a terminal is there (so the check above can fail)
    const tty = spawnSync('script', ['-qec', `${process.execPath} --input-type=module -e ${shellQuote(probe)}`, '/dev/null'], { encoding: 'utf8', timeout: 30_000 });
    expect(tty.status, tty.stdout).toBe(0);
    expect(tty.stdout).toMatch(/pino-pretty/);
  });

  it.skipIf(!haveScript)('the real daemon on a terminal prints readable lines, not JSON', () => {
    const root = tempRoot('pico-tty-');
    initRoot(root);
    // `script` gives the daemon a pseudo-terminal as stdout; `timeout -s INT` stops it after it is ready
    const cmd = `timeout -s INT 12 ${process.execPath} ${MAIN_JS} daemon --root ${root}`;
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, PICO_LOG_LEVEL: 'info', NO_COLOR: '1' } });
    const lines = r.stdout.split(/\r?\n/).filter((l) => l.trim() !== '');
    const ready = lines.find((l) => l.includes('picoharness daemon ready on'));
    expect(ready, r.stdout + r.stderr).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: picoharness daemon ready on /);
    expect(lines.some((l) => l.startsWith('{"level"'))).toBe(false);
  }, 60_000);
});
