/**
 * A daemon started on a terminal whose window is closed: the terminal hangs
 * up, the kernel sends SIGHUP, and later writes to it fail with EIO. Before,
 * SIGHUP was taken for a reload, the daemon ran on unseen and died on its
 * next log line (an unhandled EIO) without closing its status file. Now a
 * SIGHUP that comes with the loss of the controlling terminal stops it as
 * SIGTERM does, and a log reader that went away (a hung-up terminal, a closed
 * pipe) drops lines instead of crashing the process. A `kill -HUP` while the
 * terminal is still there stays a reload (test/service/reload.test.ts).
 * The terminal is a real pseudo-terminal made by util-linux `script`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '../helpers/until.js';
import { describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from '../daemon/helpers.js';
import { MAIN_JS } from '../daemon/spawn.js';

const LOG_JS = fileURLToPath(new URL('../../dist/src/base/log.js', import.meta.url));
const haveScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
if (!haveScript) console.warn('util-linux `script` not found: skipping the terminal hangup checks');



function readStatus(root: string): { state: string; pid: number } | null {
  try {
    return JSON.parse(readFileSync(join(root, 'sessions', '.daemon', 'status.json'), 'utf8')) as { state: string; pid: number };
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a terminal that hangs up', () => {
  it.skipIf(!haveScript)('stops a daemon started on it cleanly (exit 0, status "stopped"), with nothing on stderr', async () => {
    const root = tempRoot('pico-hup-');
    initRoot(root);
    const errFile = join(root, 'daemon.err');
    const codeFile = join(root, 'daemon.code');
    // `; echo` keeps a shell as the session leader, as a login shell in a terminal window is
    const cmd = `${process.execPath} ${MAIN_JS} daemon --root ${root} 2>${errFile}; echo $? > ${codeFile}`;
    const term = spawn('script', ['-qfc', cmd, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PICO_LOG_LEVEL: 'info' } });
    term.stdout.resume();
    const running = await until('the daemon to be ready', () => {
      const s = readStatus(root);
      return s?.state === 'running' ? s : null;
    });
    term.kill('SIGKILL'); // the window closes: the pseudo-terminal's master side goes away
    await until('the daemon to exit', () => !alive(running.pid), 30_000);
    expect(readStatus(root)?.state).toBe('stopped');
    expect(readFileSync(errFile, 'utf8')).toBe('');
    // the shell that waited for it may itself have been hung up; when it lived, it saw exit 0
    if (existsSync(codeFile)) expect(readFileSync(codeFile, 'utf8').trim()).toBe('0');
  }, 60_000);

  it('a logger whose stdout pipe was closed by its reader drops the lines and the process goes on to exit 0', () => {
    const probe = `import { createLogger } from ${JSON.stringify(LOG_JS)};
      const log = createLogger({ to: 'stdout', level: 'info' });
      log.info('first');
      await new Promise((r) => setTimeout(r, 300));
      for (let i = 0; i < 1000; i++) log.error({ i }, 'after the reader left');
      process.stderr.write('went on');`;
    // the reader reads one line and leaves: every later write gets EPIPE
    const r = spawnSync('sh', ['-c', `${process.execPath} --input-type=module -e "$0" | head -c 1 >/dev/null`, probe], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toBe('went on');
    expect(r.status).toBe(0);
  });
});
