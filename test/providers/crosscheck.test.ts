// The log_summary@2 cross-check (ladder level 4): the recount of rule-1 lines
// wins, except for null, rule-2-only lines and the fallback.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crossChecks } from '../../src/crosschecks/index.js';
import { FIXTURES, loadFixtures } from './fixtures.js';

const check = crossChecks['log_summary@2']!;
const all = [...loadFixtures(join(FIXTURES, 'log_summary')), ...loadFixtures(join(FIXTURES, 'log_summary', 'poisoned'))];

describe('log_summary@2 cross-check', () => {
  it('is registered under log_summary@2', () => {
    expect(typeof check).toBe('function');
  });

  for (const fx of all) {
    it(`accepts the expected value of ${fx.name}`, () => {
      expect(check(fx.expected, fx.input)).toBeNull();
    });
  }

  it('refuses a count that is one off on a window decided by rule 1, and says what the recount found', () => {
    const fx = all.find((f) => f.name === 'rfc3164-disk-full')!;
    const wrong = { ...fx.expected, error_count: (fx.expected.error_count as number) + 1 };
    expect(check(wrong, fx.input)).toMatch(/error_count is 5 but a recount finds 4/);
    expect(check({ ...fx.expected, error_count: 0 }, fx.input)).toMatch(/recount finds 4/);
  });

  it('never checks a null count (abstention)', () => {
    expect(check({ error_count: null }, 'Jan  1 00:00:00 h a[1]: error\n')).toBeNull();
  });

  it('lets a provider count or skip lines that only a priority marks, but no more', () => {
    const text = '<11>1 - h app - - - disk full\n<14>1 - h app - - - error: retry\n';
    expect(check({ error_count: 1 }, text)).toBeNull();
    expect(check({ error_count: 2 }, text)).toBeNull();
    expect(check({ error_count: 3 }, text)).toMatch(/recount finds 1/);
  });

  it('does not judge a window the fallback decides, but does judge one that states a severity', () => {
    expect(check({ error_count: 1 }, 'rsync: connection timed out\n')).toBeNull();
    expect(check({ error_count: 1 }, 'warning: connection timed out\n')).toMatch(/must be 0/);
  });

  it('refuses a number where the window says lines were not returned', () => {
    expect(check({ error_count: 1 }, '-- 5 lines not returned --\nJan  1 00:00:00 h a[1]: error\n')).toMatch(/must be null/);
  });

  it('refuses a value that is not a log_summary object', () => {
    expect(check('nope', 'x')).toMatch(/no "error_count" field/);
  });
});
