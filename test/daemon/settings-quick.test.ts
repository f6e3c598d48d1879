/**
 * The daemon reads settings.json without zod when the file is valid
 * (src/daemon/settings.ts acceptSettings); this holds that check to settings@1
 * itself (settings-schema.ts): over many files (each field replaced by values
 * either side of its rules, dropped, or joined by an unknown field) it accepts
 * exactly what the schema accepts and returns what its parse returns, defaults
 * and field order included; and a wrong file still gets the schema's words.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acceptSettings, defaultSettings, loadSettings, parseSettingsStrictly, SettingsError } from '../../src/daemon/settings.js';
import { settingsSchema } from '../../src/daemon/settings-schema.js';
import { tempRoot } from './helpers.js';
import { thrownBy } from '../helpers/thrown.js';

const FULL = { settings: 'settings@1', log_level: 'debug', listen: '127.0.0.1:8080', worker_idle_ms: 2000, grace_ms: 5000, gc: { older_than_days: 30, archive: true, every_hours: 6 }, low_disk_mb: 0, stalled_after_s: 60 };
const VALUES: unknown[] = [
  undefined, null, true, false, 0, 1, -1, 0.5, 1.5, 2 ** 53, 15_000, '', 'info', 'warn', 'INFO', 'verbose', 'settings@1', 'settings@2',
  '127.0.0.1:80', 'localhost:9', '[::1]:1', 'unix:/run/pico.sock', '0.0.0.0:80', 'example.com:80', '127.0.0.1', [], {}, { older_than_days: 1 },
  { older_than_days: 0 }, { older_than_days: 1, archive: 'yes' }, { older_than_days: 1, every_hours: 0 }, { older_than_days: 1, keep: 1 }, { archive: true },
];

function variants(): unknown[] {
  const out: unknown[] = [FULL, { settings: 'settings@1' }, { ...FULL, extra: 1 }, null, [], 'settings@1', { settings: 'settings@1', gc: { older_than_days: 2, extra: 1 } }];
  for (const base of [FULL, { settings: 'settings@1' }]) {
    for (const k of Object.keys(FULL)) {
      for (const v of VALUES) {
        const o: Record<string, unknown> = { ...base };
        if (v === undefined) delete o[k];
        else o[k] = v;
        out.push(o);
      }
    }
  }
  return out;
}

describe('the quick settings check', () => {
  it('gives the schema\'s defaults for a file with only its version', () => {
    expect(defaultSettings()).toStrictEqual(settingsSchema.parse({ settings: 'settings@1' }));
  });

  it('accepts exactly what settings@1 accepts and returns what its parse returns', () => {
    let accepted = 0;
    for (const raw of variants()) {
      const quick = acceptSettings(raw);
      const real = settingsSchema.safeParse(raw);
      expect(quick !== null, JSON.stringify(raw)).toBe(real.success);
      if (quick) {
        accepted++;
        expect(JSON.stringify(quick)).toBe(JSON.stringify(real.data));
        expect(quick).toStrictEqual(real.data);
      }
    }
    expect(accepted).toBeGreaterThan(30);
  });

  it('words a wrong file with the schema (zod loaded for it), naming the file, the field and the fix', () => {
    const root = tempRoot();
    const raw = { settings: 'settings@1', worker_idle_ms: -5, log_level: 'loud' };
    writeFileSync(join(root, 'settings.json'), JSON.stringify(raw));
    const err = thrownBy(() => loadSettings(root));
    expect(err).toBeInstanceOf(SettingsError);
    const r = parseSettingsStrictly(raw);
    expect(r.success).toBe(false);
    expect(settingsSchema.safeParse(raw).error!.issues).toEqual(r.error!.issues);
    expect((err as SettingsError).message).toBe(`${join(root, 'settings.json')}: ${r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    expect((err as SettingsError).message).toMatch(/log_level: .*worker_idle_ms: /);
    expect((err as SettingsError).fix).toMatch(/docs\/operating\.md, "Settings"/);
  });
});
