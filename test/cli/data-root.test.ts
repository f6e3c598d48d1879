/**
 * Issue 21, "a data root apart from the code": npm start runs the daemon on a
 * git-ignored folder that pico init makes on its first start; no command
 * writes into the package's own folders; the build npm start runs does
 * nothing when nothing changed. The compiled CLI (dist/; build first) runs
 * against this very checkout, whose `git status` must not change.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';
import { picoAsync as pico, startDaemon } from '../daemon/spawn.js';

const gitStatus = () => spawnSync('git', ['-C', REPO, 'status', '--porcelain', '--', 'manifests', 'prompts', 'examples', 'providers', 'sessions', 'memory'], { encoding: 'utf8' }).stdout;
const isCheckout = existsSync(join(REPO, '.git'));

describe('the package is never a root', () => {
  it('a command that writes refuses the checkout as its root (exit 2, with the fix), and the checkout stays as it was', async () => {
    const before = gitStatus();
    for (const args of [
      ['run', 'examples/jobs/prune-the-log-archive.json', '--root', REPO],
      ['submit', join(REPO, 'examples/jobs/why-is-the-disk-full.json'), '--root', REPO],
      ['init', REPO],
      ['provision', '/nonexistent/model.gguf', '--id', 'tiny', '--implements', 'extract@1', '--root', REPO],
    ]) {
      const r = await pico(args);
      expect(r.code, `pico ${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/is the picoharness package itself.*never a root/);
      expect(r.stderr).toMatch(/fix: .*pico init DIR/);
    }
    if (isCheckout) expect(gitStatus()).toBe(before);
  });
});

describe('npm start', () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

  it('runs the daemon with --init on ./root (or PICO_ROOT), a folder git ignores, never on the checkout', () => {
    expect(pkg.scripts.start).toMatch(/daemon --init --root "\$\{PICO_ROOT:-root\}"/);
    expect(pkg.scripts.start).not.toMatch(/--root \.(\s|$)/);
    if (isCheckout) expect(spawnSync('git', ['-C', REPO, 'check-ignore', '-q', 'root/sessions/x/events.jsonl']).status).toBe(0);
  });

  it('pico daemon --init makes the root with the shipped defaults on its first start and serves it', async () => {
    const root = join(tempDir('pico-start-'), 'root');
    const d = startDaemon(root, {}, ['--init']);
    const made = await d.waitFor((l) => l.event === 'root_initialised');
    await d.waitFor((l) => l.event === 'ready');
    expect(made.root).toBe(root);
    expect(existsSync(join(root, 'manifests', 'tools', 'read_file.json'))).toBe(true);
    expect(existsSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'))).toBe(true);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    // the second start finds a root and leaves it as it is
    const again = startDaemon(root, {}, ['--init']);
    await again.waitFor((l) => l.event === 'ready');
    expect(again.lines.some((l) => l.event === 'root_initialised')).toBe(false);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });

  it('does not rebuild when nothing changed: the build is incremental and finds dist/ up to date', () => {
    expect(pkg.scripts.prestart).toBe('npm run build');
    expect(pkg.scripts.build).toMatch(/^tsc -b /);
    // right after a build (npm test builds first), tsc's own up-to-date check has nothing to do
    const r = spawnSync(join(REPO, 'node_modules/.bin/tsc'), ['-b', 'tsconfig.json', '--dry', '--verbose'], { cwd: REPO, encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/is up to date/);
    expect(r.stdout).not.toMatch(/A non-dry build would/);
  });
});
