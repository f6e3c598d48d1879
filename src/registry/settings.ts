/**
 * The registry's one setting: the system folders a manifest's command may
 * name besides the root. It sits here, below the world, because the registry
 * checks it when a manifest loads (boundary.ts) and the world, which runs the
 * command, may read it too. Not part of the composition's policy settings.
 */

/**
 * Where a manifest's command may live besides the root (a shell provider's or a tool's argv[0]).
 * A bare name is looked up in these folders only; an absolute path must lie in one of them.
 */
export const COMMAND_DIRS: readonly string[] = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];
