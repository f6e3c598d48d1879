/**
 * What the execution world enforces on this machine: the shape the probe
 * (sandbox.ts) fills once per process, the wrappers (wrap.ts) build argv
 * from, and run.ts, the report and the bench read. Apart from sandbox.ts so
 * the probe and the wrappers, which use each other, both import it from
 * below. Shape only.
 */
import type { IsolationLevel } from '../registry/levels.js';

export type LimitName = 'cpu' | 'memory' | 'processes' | 'fileSize';

export interface WorldCapabilities {
  level: IsolationLevel;
  /** which wrapper provides the level */
  wrapper: 'bwrap' | 'unshare' | null;
  /** absolute path of the wrapper binary, or null */
  wrapperPath: string | null;
  /** prlimit, when limits are set */
  limiterPath: string | null;
  /** setpriv, when capabilities (and, as root, the user) are dropped */
  dropperPath: string | null;
  /** the user programs run as when the daemon is root; null = the daemon's own user */
  runAsUid: number | null;
  /** true when the subprocess can reach a network (i.e. network isolation is NOT enforced) */
  network: boolean;
  readOnlyFilesystem: boolean;
  privateProc: boolean;
  /** the program holds no capability: it cannot mount, unmount or remount */
  capabilitiesDropped: boolean;
  /** only system folders, declared read paths and its own folder are visible */
  hostPathsHidden: boolean;
  /** which resource limits were observed inside a run */
  limits: Record<LimitName, boolean>;
  /** killing the first process takes every descendant with it, even one that called setsid */
  treeDiesWithLeader: boolean;
  /** always true: the environment is rebuilt from scratch for every run */
  scrubbedEnvironment: true;
  /** plain sentences on what is and is not enforced here */
  enforced: string[];
  notEnforced: string[];
}
