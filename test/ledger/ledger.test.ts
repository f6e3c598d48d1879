// The ledger (design §2): append-only, seq dense from 0, durable commits, torn tails recovered.
import { appendFileSync, closeSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayClock } from '../../src/ledger/clock.js';
import { parseEvent } from '../../src/ledger/events.js';
import { Ledger, readLedger } from '../../src/ledger/ledger.js';
import { parseTrust, admits, weakest } from '../../src/base/trust.js';
import { tempDir } from '../helpers/temp.js';

const tmp = () => tempDir('pico-ledger-');
const input = { type: 'user_input', text: 'why', trust: 'T0', budget_class: 'interactive', job: {} } as const;

describe('ledger', () => {
  it('numbers events densely from 0 and stamps session and time', () => {
    const dir = tmp();
    const { ledger } = Ledger.open(dir, 's1');
    ledger.appendDurable({ type: 'composition', hash: 'sha256:a', machine: 'sha256:b', config: 'composition.json' }, input);
    ledger.close();
    const events = readLedger(dir);
    expect(events.map((e) => e.seq)).toEqual([0, 1]);
    expect(events.every((e) => e.session_id === 's1' && !Number.isNaN(Date.parse(e.t)))).toBe(true);
  });

  it('continues seq after reopening', () => {
    const dir = tmp();
    Ledger.open(dir, 's1').ledger.appendDurable(input);
    const { ledger } = Ledger.open(dir, 's1');
    ledger.appendDurable(input);
    ledger.close();
    expect(readLedger(dir).map((e) => e.seq)).toEqual([0, 1]);
  });

  it('a torn last line is recovered: earlier events kept, torn bytes set aside', () => {
    const dir = tmp();
    const l = Ledger.open(dir, 's1').ledger;
    l.appendDurable(input, input);
    l.close();
    appendFileSync(join(dir, 'events.jsonl'), '{"seq":2,"t":"2026-11-29T00:00:00Z","type":"user_in');
    const { ledger, torn } = Ledger.open(dir, 's1');
    expect(torn).not.toBeNull();
    expect(ledger.all.length).toBe(2);
    expect(readFileSync(torn!.savedAs, 'utf8')).toContain('"seq":2');
    ledger.appendDurable(input);
    ledger.close();
    expect(readLedger(dir).map((e) => e.seq)).toEqual([0, 1, 2]);
  });

  it('a complete but unparseable last line counts as torn too', () => {
    const dir = tmp();
    Ledger.open(dir, 's1').ledger.appendDurable(input);
    appendFileSync(join(dir, 'events.jsonl'), '{"seq":1,"garbage\n');
    const { ledger, torn } = Ledger.open(dir, 's1');
    expect(torn?.bytes).toBeGreaterThan(0);
    expect(ledger.all.length).toBe(1);
  });

  it('damage in the middle is quarantined: the intact prefix stays, the rest is set aside and reported with the line', () => {
    const dir = tmp();
    Ledger.open(dir, 's1').ledger.appendDurable(input, input, input);
    const path = join(dir, 'events.jsonl');
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[1] = '{"broken": ';
    const whole = lines.join('\n');
    writeFileSync(path, whole);
    expect(() => readLedger(dir)).toThrow(/:2: the ledger is damaged before its end/);
    const { ledger, damaged, torn } = Ledger.open(dir, 's1');
    expect(torn).toBeNull();
    expect(damaged).toMatchObject({ line: 2, problem: 'the line is not JSON' });
    expect(ledger.all.length).toBe(1);
    expect(readFileSync(path, 'utf8') + readFileSync(damaged!.savedAs, 'utf8')).toBe(whole);
    expect(damaged!.savedAs).toBe(`${path}.damaged-${damaged!.offset}`);
    ledger.close();
  });

  it('a gap or a repeat in seq, another session\'s event and non-UTF-8 bytes are damage, not a torn tail', () => {
    const cases: Record<string, (lines: string[]) => string[]> = {
      gap: (l) => [l[0]!, l[1]!.replace('"seq":1', '"seq":5'), l[2]!],
      repeat: (l) => [l[0]!, l[0]!, l[1]!, l[2]!],
      'repeat as last line': (l) => [l[0]!, l[1]!, l[1]!],
      'other session': (l) => [l[0]!, l[1]!.replace('"session_id":"s1"', '"session_id":"s2"'), l[2]!],
    };
    for (const [name, edit] of Object.entries(cases)) {
      const dir = tmp();
      Ledger.open(dir, 's1').ledger.appendDurable(input, input, input);
      const path = join(dir, 'events.jsonl');
      const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
      writeFileSync(path, edit(lines).join('\n') + '\n');
      const { damaged } = Ledger.open(dir, 's1');
      expect(damaged, name).not.toBeNull();
      expect(() => readLedger(dir), name).not.toThrow(); // the damage was set aside: the file is whole again
    }
    const dir = tmp();
    Ledger.open(dir, 's1').ledger.appendDurable(input, input);
    const path = join(dir, 'events.jsonl');
    const raw = readFileSync(path);
    writeFileSync(path, Buffer.concat([raw.subarray(0, 20), Buffer.from([0xff, 0xfe]), raw.subarray(22)]));
    const { damaged, ledger } = Ledger.open(dir, 's1');
    expect(damaged?.problem).toBe('the line is not UTF-8 text');
    expect(ledger.all.length).toBe(0);
  });

  it('an append that cannot be written whole leaves the file at an event boundary and refuses more writes', () => {
    const dir = tmp();
    const { ledger } = Ledger.open(dir, 's1');
    ledger.appendDurable(input);
    const before = readFileSync(join(dir, 'events.jsonl'));
    // RLIMIT_FSIZE is not settable from node; a closed descriptor under the ledger makes every write fail (EBADF)
    closeSync((ledger as unknown as { fd: number }).fd);
    expect(() => ledger.append(input)).toThrow(/appending event 1/);
    expect(() => ledger.append(input)).toThrow(/appending event 1/);
    expect(ledger.all.length).toBe(1);
    expect(readFileSync(join(dir, 'events.jsonl'))).toEqual(before);
  });

  it('an event with a misspelt field is refused before it is written', () => {
    const dir = tmp();
    const { ledger } = Ledger.open(dir, 's1');
    expect(() => ledger.append({ ...input, txet: 'x' } as never)).toThrow(/txet|Unrecognized/i);
    expect(existsSync(join(dir, 'events.jsonl')) ? readFileSync(join(dir, 'events.jsonl'), 'utf8') : '').toBe('');
  });

  it('blobs are content-addressed and verified on read', () => {
    const dir = tmp();
    const { ledger } = Ledger.open(dir, 's1');
    const a = ledger.blobs.put('hello');
    expect(ledger.blobs.put('hello').ref).toBe(a.ref);
    expect(ledger.blobs.getText(a.ref)).toBe('hello');
    writeFileSync(join(dir, 'blobs', a.ref.slice(7)), 'tampered');
    expect(() => ledger.blobs.get(a.ref)).toThrow(/corrupt/);
  });

  it('a replay clock answers with the recorded times', () => {
    const dir = tmp();
    const l = Ledger.open(dir, 's1').ledger;
    l.appendDurable(input);
    l.close();
    const rec = readLedger(dir);
    const clock = replayClock(rec);
    expect(clock.stamp(0)).toBe(rec[0]!.t);
    expect(clock.measured(0, 'text', 'other')).toBe('why');
  });
});

describe('trust', () => {
  it('an unknown trust level is an error, not a default', () => {
    expect(() => parseTrust('T3')).toThrow(/unknown trust level/);
    expect(() => parseEvent({ seq: 0, t: 'x', session_id: 's', ...input, trust: 'trusted' })).toThrow(/trust/);
  });
  it('T1 is admitted only by a consumer that admits T1', () => {
    expect(admits('T2', 'T1')).toBe(false);
    expect(admits('T1', 'T1')).toBe(true);
    expect(admits('T1', 'T2')).toBe(true);
    expect(admits('T0', 'T2')).toBe(false);
  });
  it('derived trust is the weakest input: T1 is never upgraded', () => {
    expect(weakest(['T2', 'T1', 'T0'])).toBe('T1');
    expect(weakest(['T0', 'T2'])).toBe('T2');
  });
});
