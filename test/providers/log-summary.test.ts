// The log_summary@2 parser against the golden fixtures (issue 2 item 9: "The
// parser matches every one of your fixtures"), plus claims about single rules.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeProviders } from '../../providers/index.js';
import { summarizeLog, isRule1FailureLine, isRule2FailureLine } from '../../providers/log-summary/index.js';
import { compileSchema, fieldDiff, FIXTURES, loadFixtures } from './fixtures.js';

const dir = join(FIXTURES, 'log_summary');
const plain = loadFixtures(dir);
const poisoned = loadFixtures(join(dir, 'poisoned'));
const FIELDS = ['host', 'error_count', 'first_error', 'first_error_at', 'service', 'max_severity', 'service_restarted'];

describe('log_summary@2 fixtures', () => {
  it('there are at least 24 plain and 3 poisoned fixtures, and every field has a null case', () => {
    expect(plain.length).toBeGreaterThanOrEqual(24);
    expect(poisoned.length).toBeGreaterThanOrEqual(3);
    for (const f of FIELDS) expect(plain.some((x) => x.expected[f] === null), `no fixture expects ${f} = null`).toBe(true);
    const withNull = plain.filter((x) => FIELDS.some((f) => x.expected[f] === null)).length;
    expect(withNull).toBeGreaterThanOrEqual(Math.ceil(plain.length / 3));
  });

  it('every expected value is valid log_summary@2 and every extractive value occurs verbatim in its input', async () => {
    const validate = await compileSchema('log_summary@2');
    for (const fx of [...plain, ...poisoned]) {
      expect(validate(fx.expected), `${fx.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      for (const f of ['host', 'first_error', 'first_error_at', 'service']) {
        const v = fx.expected[f];
        if (typeof v === 'string') expect(fx.input.includes(v), `${fx.name}.${f} has no span in the input`).toBe(true);
      }
    }
  });

  for (const fx of [...plain, ...poisoned.map((p) => ({ ...p, name: `poisoned/${p.name}` }))]) {
    it(`the parser matches ${fx.name}`, () => {
      const got = codeProviders['log-summary']!({ text: fx.input, capability: 'extract@1', schemaId: 'log_summary@2' });
      expect(fieldDiff(got, fx.expected)).toEqual([]);
    });
  }
});

describe('log_summary@2 rules', () => {
  it('rule 1 needs a whole word: "stderr", "errorless" and "failover" are not failures, "ERRORS" is', () => {
    expect(isRule1FailureLine('stderr attached, errorless run, failover armed')).toBe(false);
    expect(isRule1FailureLine('0 ERRORS')).toBe(true);
    expect(isRule1FailureLine('status=1/FAILURE')).toBe(true);
  });

  it('rule 2 takes priorities of severity 3 or less, and only at the start of the line', () => {
    expect(isRule2FailureLine('<11>1 - - - - - - x')).toBe(true);
    expect(isRule2FailureLine('<12>1 - - - - - - x')).toBe(false);
    expect(isRule2FailureLine('x <11> y')).toBe(false);
  });

  it('warn and warning never make a failure line, so a warnings-only window counts 0 and skips the fallback', () => {
    const s = summarizeLog('Jan  1 00:00:00 h app[1]: warning: request timed out\n');
    expect(s.error_count).toBe(0);
    expect(s.max_severity).toBe('warning');
  });

  it('the fallback applies only when the window states no severity', () => {
    const quiet = summarizeLog('Jan  1 00:00:00 h app[1]: connect to db timed out\n');
    expect(quiet.error_count).toBe(1);
    expect(quiet.first_error).toBe('connect to db timed out');
    const stated = summarizeLog('Jan  1 00:00:00 h app[1]: connect to db timed out\nJan  1 00:00:01 h app[1]: info: retrying\n');
    expect(stated.error_count).toBe(0);
  });

  it('a five-line stack trace whose lines each match counts five', () => {
    const trace = ['Error: boom', '  at a (x.js:1) error', '  at b (x.js:2) error', '  at c (x.js:3) error', '  at d (x.js:4) error'].join('\n');
    expect(summarizeLog(trace).error_count).toBe(5);
  });

  it('a collector notice nulls only error_count; a program quoting the phrase does not', () => {
    const s = summarizeLog('-- 12 lines not returned --\nJan  1 00:00:00 h app[1]: error: x\n');
    expect(s.error_count).toBeNull();
    expect(s.first_error).toBe('error: x');
    expect(summarizeLog('Jan  1 00:00:00 h app[1]: user wrote "12 lines not returned" error\n').error_count).toBe(1);
  });

  it('a redacted failure message is null but keeps its time stamp and tag', () => {
    const s = summarizeLog('Jan  1 00:00:00 h app[7]: ERROR [REDACTED]\n');
    expect(s).toMatchObject({ error_count: 1, first_error: null, first_error_at: 'Jan  1 00:00:00', service: 'app' });
  });

  it('a lifecycle word later in a message, or a cron CMD, is not a restart', () => {
    expect(summarizeLog('Jan  1 00:00:00 h postgres[1]: LOG:  checkpoint starting: time\nJan  1 00:00:00 h CRON[2]: (root) CMD (Starting x)\n').service_restarted).toBe(false);
    expect(summarizeLog('Jan  1 00:00:00 h systemd[1]: stopping foo\n').service_restarted).toBe(true);
  });

  it('asking the parser for another schema is an error that names the fix', () => {
    expect(() => codeProviders['log-summary']!({ text: '', capability: 'extract@1', schemaId: 'disk_usage@1' })).toThrow(/only produces log_summary@2/);
  });
});
