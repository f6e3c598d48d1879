/**
 * The execution world: the one seam through which every tool and shell
 * provider runs (design §7). `runInWorld` runs an argv with limits,
 * `makeWorkDir` gives a step its own folder, `worldCapabilities` says what
 * this machine enforces. Nothing else in picoharness spawns a process.
 */
export { runInWorld, KILL_GRACE_MS, STDERR_CAP } from './run.js';
export type { WorldRequest, WorldResult } from './shapes.js';
export { makeWorkDir } from './workdir.js';
export { worldEnv, WORLD_PATH } from './env.js';
export { NO_ISOLATION, worldCapabilities, type IsolationLevel } from './sandbox.js';
export type { WorldCapabilities } from './capabilities.js';
