/**
 * Two-stage shutdown on SIGTERM / SIGINT.
 *
 * First signal: drain — the running session's signal is aborted, so it
 * finishes and commits the step it is in and starts nothing more; the daemon
 * then exits 0. The log line says so and says what a second signal will do.
 * If draining outlives the grace period, or a second signal arrives, the
 * daemon exits at once with a non-zero code: safe, because every committed
 * event is already durable and an unfinished session is resumed on the next
 * start.
 *
 * SIGHUP is a reload (`systemctl reload`: settings and manifests), except
 * when it is what its name says: the terminal the daemon was started on
 * hung up (the window closed). Then the process has lost its controlling
 * terminal (terminal.ts), nobody can read its lines, and it stops as on
 * SIGTERM rather than run on unseen, its stdio moved off the dead terminal
 * first. This module only turns signals into the callbacks.
 */
import { terminalWatch } from './terminal.js';
import type { Logger } from 'pino';

export const FORCED_EXIT_CODE = 1;
export const DEFAULT_GRACE_MS = 20_000;

export interface ShutdownOptions {
  log: Logger;
  graceMs?: number;
  /** begin draining (called once) */
  drain: (signal: string) => void;
  /** stop now (called at most once, after drain) */
  force: (reason: string) => void;
  signals?: readonly NodeJS.Signals[];
  /** SIGHUP that is not a hangup: read the settings and manifests again (absent: SIGHUP is left alone) */
  reload?: () => void;
}

/** Install the handlers; returns a function that removes them. */
export function installShutdown(opts: ShutdownOptions): () => void {
  const graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
  const signals = opts.signals ?? (['SIGTERM', 'SIGINT'] as const);
  let draining = false;
  let forced = false;
  let grace: NodeJS.Timeout | null = null;
  const force = (reason: string): void => {
    if (forced) return;
    forced = true;
    opts.force(reason);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGHUP' && draining) return; // a hangup after a stop changes nothing
    if (!draining) {
      draining = true;
      opts.log.info(
        { event: 'stopping', signal, grace_ms: graceMs },
        `${signal}: finishing the current step, then exiting 0 (at most ${graceMs} ms); a second SIGTERM or SIGINT forces exit now with code ${FORCED_EXIT_CODE} (the job resumes on the next start)`,
      );
      grace = setTimeout(() => {
        opts.log.error({ event: 'forced', grace_ms: graceMs }, `the current step did not finish within ${graceMs} ms; exiting with code ${FORCED_EXIT_CODE} (the job resumes on the next start)`);
        force('grace period over');
      }, graceMs);
      grace.unref();
      opts.drain(signal);
      return;
    }
    opts.log.warn({ event: 'forced', signal }, `second ${signal}: exiting now with code ${FORCED_EXIT_CODE}; committed events are on disk and the job resumes on the next start`);
    force(`second ${signal}`);
  };
  for (const s of signals) process.on(s, onSignal);
  const terminal = terminalWatch();
  const onHup = (): void => {
    if (terminal.hungUp()) {
      terminal.detach();
      return onSignal('SIGHUP');
    }
    opts.reload?.();
  };
  if (opts.reload) process.on('SIGHUP', onHup);
  return () => {
    if (grace) clearTimeout(grace);
    for (const s of signals) process.off(s, onSignal);
    process.off('SIGHUP', onHup);
  };
}
