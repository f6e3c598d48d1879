/**
 * runTool — one tool call, from checked arguments to its raw output.
 *
 * Why: tools are where outside data (T1) enters a session, so a call goes
 * through exactly one path: the arguments are checked and confined
 * (`args.ts`), the argv runs in the execution world with the manifest's
 * limits, and every fault becomes a `ProviderError` whose type is the ledger
 * event to write: `tool_failed` (bad arguments, non-zero exit, flood),
 * `tool_timeout`, or `tool_empty`. An exit code the manifest declares
 * partial (`partial_exit_codes`: du met a folder it could not read) is not a
 * fault: the output is kept, with what the tool said on stderr after it, and
 * the exit code recorded makes the answer partial. A destructive tool is
 * refused unless the caller says the operator approved it. A failure or an
 * empty read carries the manifest's plain cause when one fits (causes.ts); a
 * cause the manifest marks `empty` makes the read tool_empty, and one that
 * names exit code 0 makes a run that exited 0 but read nothing a failure.
 *
 * It deliberately does not write the ledger, store blobs or reduce the output:
 * the runtime does that with the `ToolRun` returned here.
 */
import { ProviderError } from '../runtime/provider.js';
import type { ToolManifest } from '../registry/manifest.js';
import { argvFiles, declaredPaths } from '../world/readable.js';
import { runInWorld } from '../world/run.js';
import { abortReason, stderrExcerpt } from '../world/shapes.js';
import { buildArgv } from './args.js';
import { interpreterArgv } from '../base/argv-grammar.js';
import { classifyRun } from './causes.js';
import type { WorldCapabilities } from '../world/capabilities.js';

export interface ToolContext {
  root: string;
  /** the step's own directory, from makeWorkDir */
  workDir: string;
  signal?: AbortSignal;
  /** return output cut at max_output_bytes instead of failing; default false */
  allowTruncated?: boolean;
  /** required for effect "destructive": the operator granted approval for this call */
  approved?: boolean;
  /** run at this isolation instead of the machine's probed one (a test of every level) */
  world?: WorldCapabilities;
}

export interface ToolRun {
  output: string;
  exitCode: number | null;
  durationMs: number;
  truncated: boolean;
}

/** Run one tool with checked arguments inside the execution world. */
export async function runTool(tool: ToolManifest, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolRun> {
  if (tool.effect === 'destructive' && ctx.approved !== true) {
    throw new ProviderError('tool_failed', `tool ${tool.name}: effect is destructive and no approval was given; the runtime must record approval_granted and pass approved: true`);
  }
  if (tool.effect !== 'destructive' && (tool.write_paths ?? []).length > 0) {
    throw new ProviderError('tool_failed', `tool ${tool.name}: write_paths is only for a destructive tool (one that waits for approval); set "effect": "destructive" or remove write_paths`);
  }
  const argv = await buildArgv(tool, args, ctx.root);
  const r = await runInWorld({
    argv, cwd: ctx.workDir, timeoutMs: tool.limits.timeout_ms, maxOutputBytes: tool.limits.max_output_bytes,
    writable: [ctx.workDir, ...declaredPaths(tool.write_paths ?? [], ctx.root)], readable: [...declaredPaths(tool.read_paths, ctx.root), ...argvFiles(tool.command, ctx.root)],
    ...(tool.read_groups ? { groups: tool.read_groups } : {}), ...(tool.requires_isolation ? { requires: tool.requires_isolation } : {}),
    ...(tool.host_view?.includes('pid') ? { env: ownProcesses() } : {}), ...(tool.host_view ? { hostView: tool.host_view } : {}), ...(ctx.signal ? { signal: ctx.signal } : {}),
  }, ctx.world ? { capabilities: ctx.world } : {});
  const detail = { exitCode: r.exitCode, stderr: stderrExcerpt(r.stderr), durationMs: r.durationMs };
  const command = shownCommand(tool, argv, r.command);
  if (r.canceled) throw abortReason(ctx.signal);
  // why it read nothing, in the manifest's words: absent, unreadable and empty are three causes
  const cause = r.timedOut || r.truncated ? null : classifyRun(tool, r);
  const said = cause ? { ...detail, cause: { id: cause.id, plain: cause.plain } } : detail;
  if (r.timedOut) {
    throw new ProviderError('tool_timeout', `tool ${tool.name}: stopped after limits.timeout_ms = ${tool.limits.timeout_ms} ms (${command}); raise the limit in the manifest or narrow the arguments`, detail);
  }
  if (r.truncated && ctx.allowTruncated !== true) {
    throw new ProviderError('tool_failed', `tool ${tool.name}: output exceeded limits.max_output_bytes = ${tool.limits.max_output_bytes} and was cut; raise the limit in the manifest or narrow the arguments`, detail);
  }
  // a declared partial exit code with output is a run that did part of the work, not a failure
  const partial = !r.truncated && r.exitCode !== null && r.exitCode !== 0 && (tool.partial_exit_codes ?? []).includes(r.exitCode) && r.stdout.trim() !== '';
  if (cause?.empty) {
    throw new ProviderError('tool_empty', `tool ${tool.name}: ${command} read nothing (${cause.plain})${detail.stderr ? `: ${detail.stderr}` : ''}`, said);
  }
  if (!r.truncated && ((r.exitCode !== 0 && !partial) || (r.exitCode === 0 && cause))) {
    const why = r.exitCode === null ? (r.cause ?? `killed by ${r.signal}`) : r.exitCode === 0 ? `exit code 0 but ${cause!.plain}` : `exit code ${r.exitCode}`;
    throw new ProviderError('tool_failed', `tool ${tool.name}: ${command} failed with ${why}${detail.stderr ? `: ${detail.stderr}` : ''}`, said);
  }
  if (r.stdout.trim() === '') {
    throw new ProviderError('tool_empty', `tool ${tool.name}: ${command} printed nothing; check that the input holds data`, said);
  }
  const output = partial && tool.output.media === 'text' ? withStderr(r.stdout, r.stderr, r.exitCode!) : r.stdout;
  return { output, exitCode: r.exitCode, durationMs: r.durationMs, truncated: r.truncated };
}

/**
 * Which of the host's processes are picoharness's own, for a tool that sees them all (host_view
 * "pid"): this process (the session worker, or `pico ask` itself) and, when it is a daemon's forked
 * worker, the daemon. The tool's parser leaves them and everything below them out
 * (providers/lib/own-processes.ts), so a ranking never names the worker or the tool's own ps.
 */
function ownProcesses(): Record<string, string> {
  return { PICO_WORKER_PID: String(process.pid), ...(typeof process.send === 'function' ? { PICO_DAEMON_PID: String(process.ppid) } : {}) };
}

/**
 * The command as a message shows it: a script given to an interpreter (`sh -c CODE name args`) is
 * the manifest's to read, so the message names the script by its $0 and shows the arguments only.
 */
function shownCommand(tool: ToolManifest, argv: readonly string[], full: string): string {
  const i = interpreterArgv(tool.command);
  if (!i || i.code === null) return full;
  const rest = argv.slice(i.code + 1);
  return rest.length > 0 ? `${tool.command[i.at]} -c <the ${tool.name} script> ${rest.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}` : full;
}

/** The line a partial run's stderr follows in its output (text tools), so a reducer can tell what was not done. */
export const STDERR_MARK = '--- stderr';
const STDERR_LINES = 50;
const STDERR_BYTES = 4096;

/** stdout, then what the tool said on stderr (its first lines, capped) under STDERR_MARK. */
function withStderr(stdout: string, stderr: string, code: number): string {
  const lines = stderr.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '');
  if (lines.length === 0) return stdout;
  const kept: string[] = [];
  let bytes = 0;
  for (const l of lines.slice(0, STDERR_LINES)) {
    bytes += Buffer.byteLength(l, 'utf8') + 1;
    if (bytes > STDERR_BYTES) break;
    kept.push(l);
  }
  const more = lines.length - kept.length;
  return `${stdout}${stdout.endsWith('\n') ? '' : '\n'}${STDERR_MARK} (exit ${code}: part of the work was not done) ---\n${kept.join('\n')}\n${more > 0 ? `… ${more} more line${more === 1 ? '' : 's'}\n` : ''}`;
}
