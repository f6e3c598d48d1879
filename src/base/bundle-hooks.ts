/**
 * What code inside a bundle asks of the process that runs it (base/bundle-run.ts, issue 32).
 *
 * The session worker runs as one CommonJS bundle compiled through V8's code cache. Two things
 * that an ES module does by itself need help there: an `import()` of a package that stays outside
 * the bundle (node-llama-cpp, ESM only, loaded when a model is first called), which a script run
 * through `node:vm` cannot do without an experimental flag; and knowing when start-up is over, so
 * the code cache can be written with what start-up compiled. The runner installs both on
 * globalThis; run as plain modules (the tests, a build without the bundle), neither is installed
 * and these fall back to the ordinary `import()` and to doing nothing.
 */

const IMPORT = Symbol.for('picoharness.bundle.import');
const STARTED = Symbol.for('picoharness.bundle.started');

type Hooks = { [IMPORT]?: (specifier: string) => Promise<unknown>; [STARTED]?: () => void };

/** `import(name)` of a package installed beside picoharness, inside a bundle or not. */
export function importPackage<T>(name: string): Promise<T> {
  const hook = (globalThis as Hooks)[IMPORT];
  return (hook ? hook(name) : import(name)) as Promise<T>;
}

/** Start-up is over (the session worker is warm): a bundle runner may now keep what was compiled. */
export function startupDone(): void {
  (globalThis as Hooks)[STARTED]?.();
}

/** Whether this process runs from a bundle (the runner installed its hooks): for the ready lines. */
export function fromBundle(): boolean {
  return (globalThis as Hooks)[STARTED] !== undefined;
}

/** For the runner: how this process imports packages, and what to do once start-up is over. */
export function installBundleHooks(importFn: (specifier: string) => Promise<unknown>, onStarted: () => void): void {
  const g = globalThis as Hooks;
  g[IMPORT] = importFn;
  g[STARTED] = onStarted;
}
