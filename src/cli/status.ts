/**
 * `pico status --root DIR [--json]` — is the daemon running, and doing what?
 *
 * Reads sessions/.daemon/status.json and checks that its pid is still the
 * daemon that wrote it, so a stale file (SIGKILL, power loss) reads as "not
 * running". Exit code 0 when running, 3 when not (as `systemctl status`).
 * Then what needs a person (src/status/flags.ts: broken settings or
 * manifests, a stalled queue, low disk, approvals, a weak sandbox), each
 * with its fix, the limits in force and the sessions' disk use; the flags
 * do not change the exit code.
 */
import { daemonPaths } from '../daemon/paths.js';
import { readStatus, type DaemonStatus } from '../daemon/status.js';
import { readWorldReport, worldLine } from '../world/report.js';
import { extrasLines, statusExtras } from '../status/flags.js';
import { jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico status [--root DIR] [--json]';

/** "3m12s"-style duration. */
function human(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60}s`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

/** The lines describing a live daemon's work. */
function describe(s: DaemonStatus, now: number): string[] {
  const lines: string[] = [];
  const r = s.running;
  if (s.paused) lines.push(`  paused:  ${s.paused.code} since ${s.paused.since.slice(0, 19).replace('T', ' ')}: ${s.paused.reason}\n           sessions wait and are retried every ${human(s.paused.retry_in_ms)} at most; fix: ${s.paused.fix}`);
  lines.push(r ? `  running: ${r.session}${r.label ? ` (${r.label})` : ''} ${r.budget_class}, step ${r.step ?? '(starting)'}, for ${human(now - Date.parse(r.started_at))}` : '  running: nothing (idle)');
  lines.push(`  queue:   ${Object.entries(s.queue).map(([c, n]) => `${c} ${n}`).join(', ')}`);
  for (const w of s.waiting ?? []) {
    lines.push(`  waiting for approval: ${w.session} step ${w.step}${w.tool ? ` (${w.tool})` : ''} since ${w.since}; pico approve ${w.session} ${w.step}  or  pico deny ${w.session} ${w.step}`);
  }
  if (s.memory) lines.push(`  memory:  rss ${s.memory.rss_mb} MB, heap ${s.memory.heap_used_mb} MB (at ${s.updated_at.slice(11, 19)})`);
  if (s.worker) lines.push(`  worker:  ${s.worker.pid === null ? 'none (it starts with the next job)' : `pid ${s.worker.pid}`}`);
  lines.push(`  counts:  finished ${s.counts.finished}, rejected ${s.counts.rejected}, resumed ${s.counts.resumed}, errors ${s.counts.errors}`);
  if (s.recent.length > 0) lines.push('  recent:');
  for (const o of s.recent) lines.push(`    ${o.finished_at.slice(0, 19).replace('T', ' ')}  ${o.session}  ${o.outcome.padEnd(11)} ${o.duration_ms} ms`);
  return lines;
}

/** Entry point of `pico status`. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  if (positionals.length > 0) throw new UsageError(`takes no positional arguments, got ${JSON.stringify(positionals)}\nusage: ${USAGE}`);
  const root = rootOf(values);
  const paths = daemonPaths(root);
  let reading;
  try {
    reading = readStatus(paths);
  } catch (err) {
    process.stderr.write(`pico status: ${(err as Error).message}\n`);
    return 1;
  }
  const now = Date.now();
  const running = reading.state === 'running';
  const extras = await statusExtras(paths, reading, now);
  if (values.json) {
    const world = readWorldReport(paths.daemonDir);
    const body = reading.state === 'never' ? { state: 'not_running', reason: 'never started', status: null, world } : { state: running ? 'running' : 'not_running', reason: reading.state, uptime_ms: running ? now - Date.parse(reading.status.started_at) : null, status: reading.status, world };
    process.stdout.write(JSON.stringify({ ...body, ...extras }) + '\n');
    return running ? 0 : 3;
  }
  const more = `${worldLine(readWorldReport(paths.daemonDir))}\n${extrasLines(extras, running ? ['waiting_approval'] : []).join('\n')}\n`;
  if (reading.state === 'never') {
    process.stdout.write(`picoharness daemon: not running (no daemon has run on ${paths.root}; start it with \`pico daemon --root ${root}\`)\n${more}`);
    return 3;
  }
  const s = reading.status;
  if (reading.state === 'stopped') {
    process.stdout.write(`picoharness daemon: not running (pid ${s.pid} stopped cleanly, last update ${s.updated_at})\n${describe(s, now).slice(2).join('\n')}\n${more}`);
    return 3;
  }
  if (reading.state === 'stale') {
    process.stdout.write(`picoharness daemon: not running (stale status from pid ${s.pid}, last update ${s.updated_at}: it did not stop cleanly; unfinished jobs resume on the next start)\n${more}`);
    return 3;
  }
  // the waiting sessions are listed above with the commands that decide them
  process.stdout.write(`picoharness daemon: ${s.state} (pid ${s.pid}, up ${human(now - Date.parse(s.started_at))}) on ${s.root}\n${describe(s, now).join('\n')}\n${more}`);
  return 0;
}
