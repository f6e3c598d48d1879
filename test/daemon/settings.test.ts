/**
 * The daemon's settings file (src/daemon/settings.ts): absent means the
 * defaults, a wrong one is refused naming the file, the field and the fix,
 * and `pico daemon` exits 3 on it before it starts anything.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSettings, loadSettings, SettingsError } from '../../src/daemon/settings.js';
import { tempRoot } from './helpers.js';
import { picoAsync as pico } from './spawn.js';
import { thrownBy } from '../helpers/thrown.js';

describe('settings.json', () => {
  it('an absent file gives the defaults, and says it was absent', () => {
    const root = tempRoot();
    const r = loadSettings(root);
    expect(r.present).toBe(false);
    expect(r.settings).toEqual(defaultSettings());
    expect(r.settings.listen).toBeNull();
    expect(r.settings.gc).toBeNull();
  });

  it('a file with some fields keeps the defaults of the others', () => {
    const root = tempRoot();
    writeFileSync(join(root, 'settings.json'), JSON.stringify({ settings: 'settings@1', log_level: 'debug', gc: { older_than_days: 30 } }));
    const { settings, present } = loadSettings(root);
    expect(present).toBe(true);
    expect(settings.log_level).toBe('debug');
    expect(settings.gc).toEqual({ older_than_days: 30, archive: false, every_hours: 24 });
    expect(settings.grace_ms).toBe(defaultSettings().grace_ms);
  });

  it.each([
    ['not JSON', '{"settings": "settings@1",', /not JSON/],
    ['a misspelt field', JSON.stringify({ settings: 'settings@1', log_levle: 'debug' }), /log_levle|Unrecognized key/],
    ['a non-loopback address', JSON.stringify({ settings: 'settings@1', listen: '0.0.0.0:8080' }), /listen: must be 127\.0\.0\.1:PORT/],
    ['no version', JSON.stringify({ log_level: 'info' }), /settings:/],
  ])('%s is refused naming the file and the fix', (_what, text, problem) => {
    const root = tempRoot();
    writeFileSync(join(root, 'settings.json'), text);
    const err = thrownBy(() => loadSettings(root));
    expect(err).toBeInstanceOf(SettingsError);
    expect((err as SettingsError).message).toContain(join(root, 'settings.json'));
    expect((err as SettingsError).message).toMatch(problem);
    expect((err as SettingsError).fix).toMatch(/docs\/operating\.md, "Settings"|remove it/);
  });

  it('pico daemon on a root with a broken settings file exits 3 with the file and the fix, before it takes the lock', async () => {
    const root = tempRoot();
    writeFileSync(join(root, 'settings.json'), JSON.stringify({ settings: 'settings@1', worker_idle_ms: -1 }));
    const r = await pico(['daemon', '--root', root]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${join(root, 'settings.json')}: worker_idle_ms`);
    expect(r.stderr).toMatch(/^fix: correct /m);
    expect(r.stderr).not.toMatch(/internal error/);
  });
});
