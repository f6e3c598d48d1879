/**
 * The scrubbed environment of the execution world.
 *
 * Why: a subprocess must see nothing of the daemon's environment (tokens,
 * proxies, LD_PRELOAD, a developer's PATH), so the environment is built from
 * scratch for every run: a fixed PATH, a UTF-8 C locale, HOME and TMPDIR
 * pointing at the run's own working directory (the one folder a confined
 * program may write: apt, sort and mktemp need a temp folder, and /tmp is
 * read-only or absent in the sandbox), UTC time, plus the variables a caller
 * declares.
 * It deliberately never reads `process.env`.
 */

export const WORLD_PATH = '/usr/local/bin:/usr/bin:/bin';

const BASE_KEYS = new Set(['PATH', 'LANG', 'HOME', 'TMPDIR', 'TZ']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The complete environment of one run: the five base variables plus the declared ones. */
export function worldEnv(cwd: string, declared: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: WORLD_PATH, LANG: 'C.UTF-8', HOME: cwd, TMPDIR: cwd, TZ: 'UTC' };
  for (const [key, value] of Object.entries(declared)) {
    if (!NAME.test(key)) {
      throw new TypeError(`world env: variable name ${JSON.stringify(key)} is not a valid name; use letters, digits and "_"`);
    }
    if (BASE_KEYS.has(key)) {
      throw new TypeError(`world env: ${key} is fixed by the execution world and cannot be declared; remove it from env`);
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      throw new TypeError(`world env: ${key} must be a string without NUL bytes, got ${JSON.stringify(value)}`);
    }
    env[key] = value;
  }
  return env;
}
