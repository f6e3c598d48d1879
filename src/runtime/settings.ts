/**
 * Policy settings: the hard breakers and the budget classes (design §4).
 * They are part of every session's composition, so changing one changes the
 * composition hash and a replay notices.
 */
import type { BudgetClass } from '../ledger/events.js';

export const BREAKERS = {
  max_steps: 8,
  /** failed attempts of one provider within a step before escalation */
  max_retries_per_step: 2,
  /** the most input bytes a model provider may be shown */
  max_bytes_to_model: 8 * 1024,
} as const;

export interface BudgetLimits {
  wall_ms: number;
  model_calls: number;
  cpu_ms: number;
}

export const BUDGETS: Record<BudgetClass, BudgetLimits> = {
  interactive: { wall_ms: 5_000, model_calls: 2, cpu_ms: 5_000 },
  attended: { wall_ms: 60_000, model_calls: 8, cpu_ms: 60_000 },
  background: { wall_ms: 30 * 60_000, model_calls: 32, cpu_ms: 30 * 60_000 },
  batch: { wall_ms: 8 * 3_600_000, model_calls: 256, cpu_ms: 8 * 3_600_000 },
};

/** Share of a budget after which no new step starts and the answer is given with what is held. */
export const BUDGET_SOFT_SHARE = 0.8;

/** A measured pass rate below this (with enough observations) takes a provider out of selection. */
export const MIN_PASS_RATE = 0.2;
/** Observations needed before a measurement counts (below it, the manifest is believed). */
export const MIN_OBSERVATIONS = 5;

/**
 * Where a manifest's command may live besides the root (a shell provider's or a tool's argv[0]).
 * A bare name is looked up in these folders only; an absolute path must lie in one of them.
 */
export const COMMAND_DIRS: readonly string[] = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];

/**
 * Per-process limits of every program the execution world starts (setrlimit via prlimit).
 * They are per process, not a total over a tool's processes; `processes` bounds how many there can be.
 * CPU time is the run's wall-clock limit in whole seconds plus one, so a busy loop dies by itself too.
 */
export const WORLD_LIMITS = {
  /** RLIMIT_DATA: the heap and private writable mappings (RLIMIT_AS would stop Node, which reserves far more than it uses) */
  memory_bytes: 512 * 1024 * 1024,
  /** RLIMIT_NPROC: processes and threads of the sandbox user */
  processes: 64,
  /** RLIMIT_FSIZE: the largest file a program may write */
  file_bytes: 64 * 1024 * 1024,
  /** RLIMIT_NOFILE */
  open_files: 256,
} as const;

/** The user a program runs as when the daemon runs as root ("nobody"); never root itself. */
export const WORLD_SANDBOX_UID = 65534;

/**
 * What a sandboxed program sees of the host besides its own folder and declared read paths:
 * the system folders a program needs to start and run. A symlink (/bin -> usr/bin) is kept as a symlink.
 */
export const WORLD_SYSTEM_PATHS: readonly string[] = [
  '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32',
  '/etc/alternatives', '/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/localtime',
  '/etc/passwd', '/etc/group', '/etc/nsswitch.conf', '/etc/ssl/certs', '/etc/ssl/openssl.cnf', '/etc/mime.types',
];

/**
 * Which measurements the policy reads for a provider: only calls of its current identity
 * (manifest, program and prompt digests), at most the newest `last_n` of them, none older than
 * `max_age_days` — so a fixed provider starts fresh and an old slow spell ages out.
 */
export const MEASUREMENT_WINDOW = { last_n: 50, max_age_days: 14 } as const;
