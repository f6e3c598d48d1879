// The real-log corpus (test/fixtures/log_corpus, README there): real lines of every log the shipped
// tools read — this machine's journal, kernel ring, dpkg, apt and alternatives logs, a real dpkg
// failure, a real PostgreSQL run, and the sshd, nginx and Apache lines fail2ban ships as test data —
// each with its true level from its own source (the journal's PRIORITY, the ring's <N>, the
// program's documented level column or fields). The bar: no line read as a failure that its source
// does not put at err or worse, and every failure line found where the format states levels. The
// reading before this change (log_summary@2's word rules, line by line) is measured beside it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isFailure, logEntries, readLogLines, type Entry, type Level } from '../../providers/log-lines/index.js';
import { isRule1FailureLine, isRule2FailureLine } from '../../src/agent/failure-lines.js';
import { REPO } from '../helpers/root.js';

const DIR = join(REPO, 'test/fixtures/log_corpus');
const LEVELS: Level[] = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'];

interface Meta {
  kind: string;
  source: string;
  states_levels: boolean;
  truth: { from: 'journal' } | { from: 'ring' } | { from: 'list'; levels: (Level | null)[] }
    | { from: 'rules'; default: Level | null; rules: ({ match: string; level: Level } | { index: number; level: Level })[] };
}

interface Window { name: string; meta: Meta; text: string; entries: Entry[]; truth: (Level | null)[]; raw: string[] }

/** The raw record behind each entry, as the tool printed it (a ring record's continuation lines joined). */
function rawRecords(name: string, text: string): string[] {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '' && !l.startsWith('== '));
  if (name === 'kernel-ring') return lines.filter((l) => /^<\d+>\[/.test(l));
  return lines;
}

/** The true level of each record, read from its source independently of the reader under test. */
function truthOf(meta: Meta, raw: string[]): (Level | null)[] {
  const t = meta.truth;
  if (t.from === 'journal') return raw.map((l) => LEVELS[Number((JSON.parse(l) as { PRIORITY: string }).PRIORITY)]!);
  if (t.from === 'ring') return raw.map((l) => LEVELS[Number(/^<(\d+)>/.exec(l)![1]) % 8]!);
  if (t.from === 'list') return t.levels;
  return raw.map((l, i) => {
    for (const r of t.rules) {
      if ('index' in r ? r.index === i : new RegExp(r.match).test(l)) return r.level;
    }
    return t.default;
  });
}

function load(): Window[] {
  return readdirSync(DIR).filter((f) => f.endsWith('.txt')).sort().map((f) => {
    const name = f.slice(0, -4);
    const text = readFileSync(join(DIR, f), 'utf8');
    const meta = JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Meta;
    const raw = rawRecords(name, text);
    return { name, meta, text, entries: logEntries(text).entries, truth: truthOf(meta, raw), raw };
  });
}

/** The old reading of one record: log_summary@2's rules 1 and 2 on the text the old tools handed over. */
function before(name: string, raw: string): boolean {
  if (name === 'journal') {
    const e = JSON.parse(raw) as { SYSLOG_IDENTIFIER?: string; MESSAGE?: unknown };
    return isRule1FailureLine(`${e.SYSLOG_IDENTIFIER ?? ''}: ${String(e.MESSAGE ?? '')}`);
  }
  return isRule1FailureLine(raw) || isRule2FailureLine(raw);
}

const windows = load();

describe('the real-log corpus', () => {
  it('holds every shipped log kind, each window with its source named and one true level per record', () => {
    expect(windows.length).toBeGreaterThanOrEqual(14);
    for (const w of windows) {
      expect(w.meta.source.length, w.name).toBeGreaterThan(20);
      expect(w.entries.length, w.name).toBe(w.raw.length);
      expect(w.truth.length, w.name).toBe(w.raw.length);
    }
    const kinds = new Set(windows.map((w) => w.meta.kind));
    for (const k of ['journal', 'kernel ring', 'syslog', 'dpkg.log', 'apt history.log', 'apt term.log', 'auth.log (sshd)']) expect(kinds).toContain(k);
  });

  it('no line is read as a failure unless its source puts it at err or worse (before: the word rules misread many)', () => {
    const rows: string[] = [];
    let total = 0;
    let misreadBefore = 0;
    let misreadAfter = 0;
    for (const w of windows) {
      const wrong = w.entries.filter((e, i) => isFailure(e.level) && !isFailure(w.truth[i]!));
      const wrongBefore = w.raw.filter((r, i) => before(w.name, r) && !isFailure(w.truth[i]!));
      total += w.raw.length;
      misreadBefore += wrongBefore.length;
      misreadAfter += wrong.length;
      rows.push(`${w.name.padEnd(22)} ${String(w.raw.length).padStart(5)} lines  misread as failures: ${String(wrongBefore.length).padStart(3)} before → ${wrong.length} now`);
      expect(wrong.map((e) => e.text), w.name).toEqual([]);
    }
    console.log(`${rows.join('\n')}\n${'all'.padEnd(22)} ${String(total).padStart(5)} lines  misread as failures: ${misreadBefore} before → ${misreadAfter} now`);
    expect(misreadBefore).toBeGreaterThan(0); // the corpus holds the lines that fooled the old reading
  });

  it('every failure line is found where the format states levels, and none is read milder where it does not', () => {
    let failures = 0;
    let foundBefore = 0;
    for (const w of windows) {
      w.truth.forEach((t, i) => {
        if (!isFailure(t)) return;
        failures += 1;
        if (before(w.name, w.raw[i]!)) foundBefore += 1;
        const read = w.entries[i]!.level;
        if (w.meta.states_levels) expect(isFailure(read), `${w.name} #${i}: ${w.raw[i]}`).toBe(true);
        else expect(read === null || isFailure(read), `${w.name} #${i} read as ${read}: ${w.raw[i]}`).toBe(true);
      });
    }
    console.log(`failure lines in the corpus: ${failures}; found by the word rules before: ${foundBefore}`);
    expect(failures).toBeGreaterThanOrEqual(20);
  });

  it('a line whose format states its level is read at exactly that level', () => {
    for (const w of windows.filter((x) => x.meta.states_levels)) {
      w.truth.forEach((t, i) => {
        if (t !== null && w.entries[i]!.level !== null) expect(w.entries[i]!.level, `${w.name} #${i}: ${w.raw[i]}`).toBe(t);
      });
    }
  });
});

describe('severity from structure, never from a word in a name or a path', () => {
  const dpkg = windows.find((w) => w.name === 'dpkg')!;

  it('a package name holding "error" is not a failure line', () => {
    const named = dpkg.entries.filter((e) => e.text.includes('libgpg-error-dev'));
    expect(named.length).toBeGreaterThan(3);
    expect(named.every((e) => e.level === 'info')).toBe(true);
    const fact = readLogLines(dpkg.text);
    expect(fact).toMatchObject({ format: 'dpkg', failure_count: 0, max_level: 'info' });
  });

  it('a table named error_log in a statement and "exit code 1" in a message are not failures; PostgreSQL\'s ERROR and FATAL columns are', () => {
    const pg = readLogLines(windows.find((w) => w.name === 'postgresql')!.text);
    expect(pg.failure_count).toBe(3);
    expect(pg.failures.map((f) => f.level)).toEqual(['err', 'crit', 'err']);
    expect(pg.lines.find((l) => l.text.includes('error_log'))?.level).toBe('info');
  });

  it('a package left half-configured by a failed configure is the one failure of its dpkg.log', () => {
    const fact = readLogLines(windows.find((w) => w.name === 'dpkg-failed-configure')!.text);
    expect(fact).toMatchObject({ failure_count: 1, first_failure: { level: 'err', text: 'status half-configured pico-broken-postinst:all 1.0-1' } });
  });

  it('sshd\'s "Failed password" is an info line and its "error:" column an error', () => {
    const sshd = windows.find((w) => w.name === 'sshd-auth')!;
    const failed = sshd.entries.filter((e) => e.text.startsWith('Failed password'));
    expect(failed.length).toBeGreaterThan(3);
    expect(failed.every((e) => !isFailure(e.level))).toBe(true);
    expect(sshd.entries.filter((e) => e.text.startsWith('error: ')).every((e) => e.level === 'err')).toBe(true);
  });
});
