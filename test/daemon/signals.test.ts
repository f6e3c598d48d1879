/**
 * Issue 3 item 5: "a second signal forces; both logged", and the grace
 * period. The real runtime cancels a tool on stop, so its drain is too quick
 * to catch in between; here a real node process runs the compiled signal
 * module with a drain that never finishes (a step that hangs), and receives
 * real signals.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import './spawn.js'; // asserts dist/ is built

const SIGNALS_JS = fileURLToPath(new URL('../../dist/src/daemon/signals.js', import.meta.url));

/** Start a process whose drain never completes; returns its log lines and exit. */
function hangingDaemon(graceMs: number) {
  const script = `
    import { pino } from 'pino';
    const { installShutdown } = await import(${JSON.stringify(SIGNALS_JS)});
    const log = pino();
    installShutdown({ log, graceMs: ${graceMs}, drain: () => log.info({ event: 'draining' }), force: () => process.exit(1) });
    setInterval(() => {}, 1000);
    log.info({ event: 'up' });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Record<string, unknown>[] = [];
  const waiters: [string, () => void][] = [];
  createInterface({ input: child.stdout! }).on('line', (t) => {
    const l = JSON.parse(t) as Record<string, unknown>;
    lines.push(l);
    for (const w of waiters.filter(([e]) => e === l.event)) w[1]();
  });
  const seen = (event: string): Promise<void> =>
    lines.some((l) => l.event === event) ? Promise.resolve() : new Promise((ok) => waiters.push([event, ok]));
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  return { child, lines, seen, exited };
}

describe('two-stage shutdown', () => {
  it('the first SIGTERM drains and says what a second does; the second forces exit 1 and is logged', async () => {
    const d = hangingDaemon(60_000);
    await d.seen('up');
    d.child.kill('SIGTERM');
    await d.seen('draining');
    const stopping = d.lines.find((l) => l.event === 'stopping')!;
    expect(stopping.msg).toMatch(/^SIGTERM: finishing the current step, then exiting 0 .* a second SIGTERM or SIGINT forces exit now with code 1/);
    d.child.kill('SIGINT');
    expect(await d.exited).toBe(1);
    expect(d.lines.find((l) => l.event === 'forced')?.msg).toMatch(/^second SIGINT: exiting now with code 1/);
  });

  it('a drain that outlives the grace period ends in a forced exit 1, logged at error', async () => {
    const d = hangingDaemon(200);
    await d.seen('up');
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(1);
    const forced = d.lines.find((l) => l.event === 'forced')!;
    expect(forced.level).toBe(50);
    expect(forced.msg).toMatch(/did not finish within 200 ms/);
  });
});
