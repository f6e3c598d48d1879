/**
 * Issue 15 item 9: "a script (`systemd/install.sh`, and its `uninstall`) that
 * creates the system user and a `picoharness` group …, installs with `npm ci
 * --omit=dev`, puts `pico` on PATH, installs the unit …, and a documented
 * upgrade path". What runs here for real: install, upgrade and uninstall into
 * a temp prefix (no systemd on a build box, no users created: --no-users), the
 * installed `pico` wrapper running the installed daemon on the installed root.
 * What does not: `npm ci --omit=dev` (it needs the registry; --link-deps links
 * this checkout's node_modules instead) and systemctl; --dry-run shows both
 * are run, with their exact command lines, on a real install.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));
const INSTALL = join(CHECKOUT, 'systemd', 'install.sh');
const UNINSTALL = join(CHECKOUT, 'systemd', 'uninstall.sh');
const isRoot = process.getuid?.() === 0;
const haveAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

function sh(script: string, args: string[], opts: { uid?: number; gid?: number } = {}) {
  const r = spawnSync('bash', [script, ...args], { encoding: 'utf8', timeout: 120_000, ...opts });
  return { code: r.status, out: r.stdout + r.stderr };
}

/** Run the installed `pico` as a daemon until `finished` of a job submitted through the same wrapper. */
async function runInstalled(bin: string, jobFile: string): Promise<Record<string, unknown>> {
  const env = { ...process.env, PICO_ROOT: '', PICO_LOG_LEVEL: 'info' };
  const d = spawn(bin, ['daemon'], { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
  const lines: Record<string, unknown>[] = [];
  const exited = new Promise<number | null>((ok) => d.once('exit', ok));
  createInterface({ input: d.stdout! }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
  const until = async (pred: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    for (let i = 0; i < 600; i++) {
      const hit = lines.find(pred);
      if (hit) return hit;
      if (d.exitCode !== null) throw new Error(`the installed daemon exited: ${JSON.stringify(lines.slice(-3))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`not seen: ${JSON.stringify(lines.slice(-3))}`);
  };
  try {
    await until((l) => l.event === 'ready');
    const sub = spawnSync(bin, ['submit', jobFile], { env, encoding: 'utf8', cwd: '/' });
    expect(sub.status, sub.stderr).toBe(0);
    return await until((l) => l.event === 'finished' && l.session === sub.stdout.trim());
  } finally {
    d.kill('SIGTERM');
    expect(await exited).toBe(0);
  }
}

describe('systemd/install.sh', () => {
  it('--dry-run prints every step of a real install (user, group, npm ci at most once, npm prune --omit=dev, pico init, modes, systemctl) and changes nothing', () => {
    const before = existsSync('/opt/picoharness');
    const r = sh(INSTALL, ['--dry-run']);
    expect(r.code, r.out).toBe(0);
    for (const step of [
      // npm ci runs once, for the build (or not at all when node_modules matches the lock file already)
      /^(\+ \(cd .* && npm ci --no-audit --no-fund\)|install\.sh: node_modules matches package-lock\.json: not running npm ci again)$/m,
      /^\+ \(cd .* && npm run build\)$/m,
      /^(\+ groupadd --system picoharness|install.sh: group picoharness exists)$/m,
      /^(\+ useradd --system --gid picoharness .*picoharness|install.sh: user picoharness exists)$/m,
      /^\+ cp -Rp \S+\/node_modules \/opt\/picoharness\.new\/node_modules$/m,
      /^\+ \(cd \/opt\/picoharness\.new && npm prune --omit=dev --no-audit --no-fund\)$/m,
      /^\+ sh \/opt\/picoharness\.new\/systemd\/prune-deps\.sh \/opt\/picoharness\.new$/m,
      /^\+ write \/usr\/local\/bin\/pico$/m,
      /^\+ runuser -u picoharness -- sh -c umask 0027; exec "\$@" sh \S+ \/opt\/picoharness\/dist\/src\/cli\/main\.js init \/var\/lib\/picoharness$/m,
      /^\+ chmod 2770 \/var\/lib\/picoharness\/sessions\/inbox$/m,
      /^\+ systemctl daemon-reload$/m,
      /^\+ systemctl enable --now picoharness\.service$/m,
    ]) expect(r.out).toMatch(step);
    expect(existsSync('/opt/picoharness')).toBe(before);
    // it says what it was: nothing installed (issue 37 item 7: it used to end "done. installed")
    expect(r.out).not.toMatch(/done\. (installed|upgraded)/);
    expect(r.out).toMatch(/^install\.sh: dry run: nothing was changed; a real (install|upgrade) would run the steps above/m);
    // npm ci runs at most once: for the build, and not at all when node_modules matches the lock file
    expect(r.out.match(/^\+ \(cd .* && npm ci\b/gm) ?? []).toHaveLength(r.out.includes('not running npm ci again') ? 0 : 1);
  });

  it('--help prints the comment block at the top of the script, and not one line of the script itself', () => {
    const r = sh(INSTALL, ['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^picoharness as a systemd service/);
    expect(r.out).toMatch(/--uninstall \[--purge\] +see above\n$/);
    expect(r.out).not.toMatch(/^#|set -euo|PREFIX=|usage\(\)/m);
  });

  it.skipIf(existsSync('/run/systemd/system'))('refuses, before changing anything, to install a unit on a machine whose PID 1 is not systemd', () => {
    const prefixless = sh(INSTALL, ['--no-users', '--no-build', '--no-npm']);
    expect(prefixless.code).toBe(2);
    expect(prefixless.out).toMatch(/systemd is not the init system here \(PID 1 is .*\).*try it with --prefix DIR/);
    expect(prefixless.out).not.toMatch(/^\+ /m);
  });

  it('stages only the files the package ships (those git tracks), one by one, never a whole folder of the checkout', () => {
    const r = sh(INSTALL, ['--dry-run', '--no-users', '--prefix', tempDir('pico-install-')]);
    expect(r.code, r.out).toBe(0);
    const shipped = spawnSync('git', ['-C', CHECKOUT, 'ls-files', '--', 'manifests', 'prompts', 'examples', 'systemd', 'docs', 'providers/*.sh'], { encoding: 'utf8' });
    if (shipped.status === 0) expect(r.out).toContain(`+ copy the ${shipped.stdout.trim().split('\n').length} shipped files of manifests prompts examples systemd docs providers/*.sh`);
    expect(r.out).not.toMatch(/cp -Rp \S+\/(manifests|examples|prompts) /);
  });

  it('installs into a prefix, the installed pico runs the installed daemon, upgrades keeping the root, and uninstalls keeping it unless --purge', async () => {
    const prefix = tempDir('pico-install-');
    const args = ['--prefix', prefix, '--no-users', '--no-build', '--link-deps', CHECKOUT];
    const app = join(prefix, 'opt', 'picoharness');
    const bin = join(prefix, 'usr', 'local', 'bin', 'pico');
    const root = join(prefix, 'var', 'lib', 'picoharness');
    const unit = join(prefix, 'etc', 'systemd', 'system', 'picoharness.service');

    const first = sh(INSTALL, args);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toMatch(/installing into /);
    expect(first.out).toMatch(/\(skipped: systemctl enable --now picoharness\.service\)/);
    // the app: what runs and its docs, not the development checkout
    expect(readdirSync(app).sort()).toEqual(['.npmrc', 'README.md', 'dist', 'docs', 'examples', 'manifests', 'node_modules', 'package-lock.json', 'package.json', 'prompts', 'providers', 'systemd']);
    // dist/bundle: the daemon's and the session worker's bundles (scripts/bundles.mjs), which the installed daemon runs
    expect(readdirSync(join(app, 'dist')).sort()).toEqual(['bundle', 'providers', 'src']);
    expect(readdirSync(join(app, 'dist', 'bundle'))).toContain('worker.cjs');
    expect(readdirSync(join(app, 'providers')).every((n) => n.endsWith('.sh'))).toBe(true);
    expect(lstatSync(join(app, 'node_modules')).isSymbolicLink()).toBe(true);
    expect(statSync(bin).mode & 0o111).toBe(0o111);
    // the root: initialised, models/ there, modes for the group
    expect(existsSync(join(root, 'manifests', 'tools', 'read_file.json'))).toBe(true);
    expect(statSync(join(root, 'models')).isDirectory()).toBe(true);
    expect(statSync(root).mode & 0o7777).toBe(0o750);
    expect(statSync(join(root, 'sessions', 'inbox')).mode & 0o7777).toBe(0o2770);
    // the unit names this machine's node and the app's path
    const unitText = readFileSync(unit, 'utf8');
    expect(unitText).toMatch(new RegExp(`^ExecStart=\\S*node .* ${app}/dist/src/cli/main\\.js daemon --root /var/lib/picoharness$`, 'm'));
    if (haveAnalyze) {
      const v = spawnSync('systemd-analyze', ['verify', '--man=no', unit], { encoding: 'utf8' });
      expect(v.stdout + v.stderr).toBe('');
    }

    const jobFile = join(root, 'examples', 'jobs', 'why-is-the-disk-full.json');
    expect((await runInstalled(bin, jobFile)).outcome).toBe('answered');

    // upgrade: the same command again
    writeFileSync(join(root, 'settings.json'), JSON.stringify({ settings: 'settings@1', log_level: 'warn' }));
    writeFileSync(join(app, 'left-over.txt'), 'from the old version');
    const again = sh(INSTALL, args);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toMatch(/upgrading /);
    expect(again.out).toMatch(/is initialised already: kept as it is/);
    expect(again.out).not.toMatch(/main\.js init /);
    expect(existsSync(join(app, 'left-over.txt'))).toBe(false); // the app is replaced whole
    expect(JSON.parse(readFileSync(join(root, 'settings.json'), 'utf8'))).toMatchObject({ log_level: 'warn' });
    expect(readdirSync(join(root, 'sessions')).filter((n) => /^\d{8}-/.test(n))).toHaveLength(1); // the job's session stays
    expect(existsSync(`${app}.new`) || existsSync(`${app}.old`)).toBe(false);

    const un = sh(join(app, 'systemd', 'uninstall.sh'), ['--prefix', prefix, '--no-users']); // the installed copy, as the README says
    expect(un.code, un.out).toBe(0);
    expect(un.out).toMatch(/kept the root .*: --purge removes it/);
    for (const gone of [app, bin, unit]) expect(existsSync(gone), gone).toBe(false);
    expect(existsSync(join(root, 'settings.json'))).toBe(true);

    const purge = sh(UNINSTALL, ['--prefix', prefix, '--no-users', '--purge']);
    expect(purge.code, purge.out).toBe(0);
    expect(existsSync(root)).toBe(false);
  }, 180_000);

  it('moves a root left by the earlier DynamicUser unit (a link into var/lib/private) back, with everything in it', () => {
    const prefix = tempDir('pico-install-');
    const priv = join(prefix, 'var', 'lib', 'private', 'picoharness');
    mkdirSync(join(priv, 'sessions'), { recursive: true });
    mkdirSync(join(priv, 'manifests'));
    writeFileSync(join(priv, 'sessions', 'kept.txt'), 'a result of the old install');
    symlinkSync('private/picoharness', join(prefix, 'var', 'lib', 'picoharness'));
    const r = sh(INSTALL, ['--prefix', prefix, '--no-users', '--no-build', '--link-deps', CHECKOUT]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/a root of the earlier DynamicUser unit\): moving it back/);
    const root = join(prefix, 'var', 'lib', 'picoharness');
    expect(lstatSync(root).isDirectory()).toBe(true);
    expect(readFileSync(join(root, 'sessions', 'kept.txt'), 'utf8')).toBe('a result of the old install');
    expect(existsSync(priv)).toBe(false);
  }, 120_000);

  it('refuses unknown options and --purge without --uninstall (exit 2), and says so', () => {
    const a = sh(INSTALL, ['--purge']);
    expect(a.code).toBe(2);
    expect(a.out).toMatch(/--purge goes with --uninstall/);
    const b = sh(INSTALL, ['--prefx', '/tmp/x']);
    expect(b.code).toBe(2);
    expect(b.out).toMatch(/unknown option --prefx \(see --help\)/);
  });

  it.skipIf(!isRoot)('refuses to install for real as a user who is not root, naming the way to try it without root', () => {
    const r = sh(INSTALL, [], { uid: 65534, gid: 65534 });
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/run as root .* or with --no-users --prefix DIR to try it without root/);
  });
});
