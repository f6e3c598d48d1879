/**
 * The execution world's own constants: the per-process limits of every run,
 * the user a run drops to under root, and the system folders a sandboxed
 * program sees. They are the world's, not policy (not part of the
 * composition's policy settings); limits.ts, sandbox.ts and wrap.ts read them.
 */

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
