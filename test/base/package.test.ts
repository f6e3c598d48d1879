/**
 * Issue 21: "pico init copies only what ships with the package" and "the
 * package's own folders are never a data root" (design §13). A real git
 * checkout of a small package is made in a temp folder: a tracked tool, a
 * model manifest left there untracked (what provisioning into a checkout once
 * wrote), a git-ignored generated sample.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPackageDir, shippedFiles } from '../../src/base/package.js';
import { initRoot, PackageRootError } from '../../src/root/init.js';
import { tempDir } from '../helpers/temp.js';

function file(dir: string, rel: string, text = '{}\n'): void {
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

/** A package folder with one shipped tool, one shipped shell provider, and files that do not ship. */
function fakePackage(git: boolean): string {
  const pkg = tempDir('pico-pkg-');
  file(pkg, 'package.json', '{"name": "picoharness"}\n');
  file(pkg, 'manifests/tools/df.json');
  file(pkg, 'providers/disk-usage.sh', '#!/bin/sh\n');
  file(pkg, 'providers/answer/index.ts', 'export {};\n');
  file(pkg, '.gitignore', 'examples/data/long-syslog.txt\n');
  if (git) {
    const g = (...args: string[]) => expect(spawnSync('git', ['-C', pkg, ...args], { encoding: 'utf8' }).status).toBe(0);
    g('init', '-q');
    g('add', '.');
  }
  // what does not ship: a model manifest provisioned into the checkout, a generated sample
  file(pkg, 'manifests/providers/tiny.json');
  file(pkg, 'examples/data/long-syslog.txt', 'x\n');
  return pkg;
}

describe('what ships with the package', () => {
  it('in a checkout, only the files git tracks ship: an untracked model manifest and a generated sample do not', () => {
    const pkg = fakePackage(true);
    expect(shippedFiles(['manifests', 'examples', 'providers'], pkg)).toEqual({
      by: 'git', files: ['manifests/tools/df.json', 'providers/answer/index.ts', 'providers/disk-usage.sh'],
    });
  });

  it('pico init copies only what ships: a new root gets the tracked tool and shell provider, never the stray files', () => {
    const pkg = fakePackage(true);
    const root = join(tempDir('pico-init-'), 'r');
    const report = initRoot(root, pkg);
    expect(report.shipped_by).toBe('git');
    expect(report.created).toEqual(['manifests/tools/df.json', 'providers/disk-usage.sh']);
    expect(existsSync(join(root, 'manifests/providers/tiny.json'))).toBe(false);
    expect(existsSync(join(root, 'examples/data/long-syslog.txt'))).toBe(false);
    expect(existsSync(join(root, 'providers/answer'))).toBe(false); // code providers ship compiled, inside the package
    expect(existsSync(join(root, 'sessions/inbox'))).toBe(true);
  });

  it('an installed copy (no .git) ships every file it holds: install.sh copied only shipped ones into it', () => {
    const pkg = fakePackage(false);
    expect(shippedFiles(['manifests'], pkg)).toEqual({ by: 'all', files: ['manifests/providers/tiny.json', 'manifests/tools/df.json'] });
  });

  it('the package folder is never a root: pico init refuses it, by whatever path names it', () => {
    const pkg = fakePackage(true);
    const link = join(tempDir('pico-link-'), 'pkg');
    symlinkSync(pkg, link);
    expect(isPackageDir(link, pkg)).toBe(true);
    expect(isPackageDir(join(pkg, 'root'), pkg)).toBe(false);
    expect(() => initRoot(link, pkg)).toThrow(PackageRootError);
    expect(existsSync(join(pkg, 'sessions'))).toBe(false);
  });
});
