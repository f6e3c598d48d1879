// The world's built-in read: same shapes and limits as a subprocess, without starting one.
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInWorld } from '../../src/world/run.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('pico-builtin-');
const req = (path: string, maxOutputBytes = 1000) => ({ argv: ['builtin:read', path], cwd: dir, timeoutMs: 1000, maxOutputBytes });

describe('builtin:read', () => {
  it('reads a regular file with exit code 0', async () => {
    writeFileSync(join(dir, 'a.txt'), 'hello\n');
    const r = await runInWorld(req(join(dir, 'a.txt')));
    expect(r).toMatchObject({ exitCode: 0, stdout: 'hello\n', failed: false, truncated: false });
  });
  it('refuses to follow a symlink in the last component', async () => {
    symlinkSync('/etc/passwd', join(dir, 'link'));
    const r = await runInWorld(req(join(dir, 'link')));
    expect(r.failed).toBe(true);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/ELOOP/);
  });
  it('refuses a directory', async () => {
    const r = await runInWorld(req(dir));
    expect(r.failed).toBe(true);
  });
  it('cuts at the output cap and says so', async () => {
    writeFileSync(join(dir, 'big.txt'), 'x'.repeat(5000));
    const r = await runInWorld(req(join(dir, 'big.txt'), 100));
    expect(r.truncated).toBe(true);
    expect(r.stdout.length).toBe(100);
  });
  it('an unknown built-in is refused like a missing program', async () => {
    const r = await runInWorld({ ...req('x'), argv: ['builtin:rm', 'x'] });
    expect(r.exitCode).toBe(127);
  });
});
