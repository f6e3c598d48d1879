/**
 * The daemon's settings file: `<root>/settings.json` (settings@1), optional.
 *
 * It holds what an operator tunes about the service, not about a job's policy
 * (that is the composition: src/runtime/settings.ts): the log level, the
 * loopback API's address, how long the idle worker stays, the shutdown grace,
 * retention (`gc`, run by the daemon between jobs), and the thresholds
 * `pico status` warns at. The daemon reads it at start and again on SIGHUP
 * (`systemctl reload picoharness`); a command-line flag wins over the file.
 * A file that does not parse is refused with its path and the fix; on a
 * reload the daemon then keeps the settings it has. The file is read through
 * the one safe path (src/base/safe-open.ts): a symlink, a FIFO, a file of
 * another user or one writable beyond the root's mode is refused without a
 * byte of it quoted, and never blocks. This module reads the file and
 * nothing else.
 *
 * It does not load zod unless the file is wrong: zod costs the daemon about
 * 8 MB for as long as it runs (its idle goal is 50 MB). A valid file is taken
 * by a plain check that accepts only what settings@1 accepts and returns what
 * its parse returns (defaults included); anything else is parsed by the
 * schema, loaded then, which words the error. test/daemon/settings-quick.test.ts
 * holds the two to the same answers; settings-schema.ts is the schema for
 * everything else that wants it (the docs' field check).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseJsonQuiet, readPlantedText, rootRules, UnsafeFileError } from '../base/safe-open.js';
import type { z } from 'zod';

export const SETTINGS_FILE = 'settings.json';
/** settings.json is a handful of fields: anything bigger is not one */
const SETTINGS_MAX_BYTES = 64 * 1024;

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
const WATCH_MODES = ['auto', 'events', 'polling'] as const;

/** `127.0.0.1:PORT`, `[::1]:PORT`, `localhost:PORT` or `unix:PATH` (the API listens on loopback only). */
export const LISTEN_PATTERN = /^(?:unix:.+|(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\]):\d{1,5})$/;

/** settings@1, built with the zod given (the ESM one in settings-schema.ts; the CommonJS one here, loaded synchronously for a bad file). */
export function buildSettingsSchema(z: typeof import('zod').z) {
  return z.strictObject({
  settings: z.literal('settings@1'),
  /** pino level of the daemon's log lines (PICO_LOG_LEVEL wins) */
  log_level: z.enum(LEVELS).default('info'),
  /** the loopback API's address; null: off */
  listen: z.string().regex(LISTEN_PATTERN, 'must be 127.0.0.1:PORT, [::1]:PORT, localhost:PORT or unix:PATH').nullable().default(null),
  /** how long the session worker stays after the last job, ms */
  worker_idle_ms: z.number().int().positive().default(15_000),
  /** how long SIGTERM may take to finish the current step, ms */
  grace_ms: z.number().int().positive().default(20_000),
  /** retention: finished sessions older than `older_than_days` are removed (or archived) between jobs; null: never */
  gc: z
    .strictObject({
      older_than_days: z.number().positive(),
      /** true: one compressed archive per month under sessions/archive/ instead of deleting */
      archive: z.boolean().default(false),
      /** the daemon looks at most this often, hours */
      every_hours: z.number().positive().default(24),
    })
    .nullable()
    .default(null),
  /** `pico status` and `pico doctor` warn below this much free disk under the root, MiB */
  low_disk_mb: z.number().nonnegative().default(256),
  /** `pico status` flags the queue as stalled when jobs wait and nothing finished for this long, s */
  stalled_after_s: z.number().positive().default(600),
  /** how the inbox and the manifest folders are watched: by change events, by polling, or chosen by their filesystem (polling on NFS, SMB, FUSE…) */
  watch: z.enum(WATCH_MODES).default('auto'),
  /** how often a polled folder is looked at, ms */
  watch_poll_ms: z.number().int().min(50).default(1000),
  });
}

export type DaemonSettings = z.infer<ReturnType<typeof buildSettingsSchema>>;

export class SettingsError extends Error {
  override name = 'SettingsError';
  constructor(message: string, readonly file: string, readonly fix: string) {
    super(message);
  }
}

/** The defaults, as if the file held only `{"settings": "settings@1"}`. */
export function defaultSettings(): DaemonSettings {
  return { settings: 'settings@1', log_level: 'info', listen: null, worker_idle_ms: 15_000, grace_ms: 20_000, gc: null, low_disk_mb: 256, stalled_after_s: 600, watch: 'auto', watch_poll_ms: 1000 };
}

function plainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}
const TOP_KEYS = new Set(['settings', 'log_level', 'listen', 'worker_idle_ms', 'grace_ms', 'gc', 'low_disk_mb', 'stalled_after_s', 'watch', 'watch_poll_ms']);
const GC_KEYS = new Set(['older_than_days', 'archive', 'every_hours']);
const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;
const positiveInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

/** The settings as settings@1's parse returns them when `raw` is certainly valid; null when the schema must decide. */
export function acceptSettings(raw: unknown): DaemonSettings | null {
  if (!plainObject(raw) || !Object.keys(raw).every((k) => TOP_KEYS.has(k)) || raw.settings !== 'settings@1') return null;
  const d = defaultSettings();
  const { log_level, listen, worker_idle_ms, grace_ms, gc, low_disk_mb, stalled_after_s, watch, watch_poll_ms } = raw;
  if (watch !== undefined && !(typeof watch === 'string' && (WATCH_MODES as readonly string[]).includes(watch))) return null;
  if (watch_poll_ms !== undefined && !(Number.isSafeInteger(watch_poll_ms) && (watch_poll_ms as number) >= 50)) return null;
  if (log_level !== undefined && !(typeof log_level === 'string' && (LEVELS as readonly string[]).includes(log_level))) return null;
  if (listen !== undefined && listen !== null && !(typeof listen === 'string' && LISTEN_PATTERN.test(listen))) return null;
  if (worker_idle_ms !== undefined && !positiveInt(worker_idle_ms)) return null;
  if (grace_ms !== undefined && !positiveInt(grace_ms)) return null;
  if (low_disk_mb !== undefined && !(typeof low_disk_mb === 'number' && Number.isFinite(low_disk_mb) && low_disk_mb >= 0)) return null;
  if (stalled_after_s !== undefined && !positive(stalled_after_s)) return null;
  let outGc: DaemonSettings['gc'] = null;
  if (gc !== undefined && gc !== null) {
    if (!plainObject(gc) || !Object.keys(gc).every((k) => GC_KEYS.has(k))) return null;
    const { older_than_days, archive, every_hours } = gc;
    if (!positive(older_than_days) || (archive !== undefined && typeof archive !== 'boolean') || (every_hours !== undefined && !positive(every_hours))) return null;
    outGc = { older_than_days, archive: archive ?? false, every_hours: every_hours ?? 24 };
  }
  return {
    settings: 'settings@1',
    log_level: (log_level as DaemonSettings['log_level'] | undefined) ?? d.log_level,
    listen: (listen as string | null | undefined) ?? d.listen,
    worker_idle_ms: worker_idle_ms ?? d.worker_idle_ms,
    grace_ms: grace_ms ?? d.grace_ms,
    gc: outGc,
    low_disk_mb: low_disk_mb ?? d.low_disk_mb,
    stalled_after_s: stalled_after_s ?? d.stalled_after_s,
    watch: (watch as DaemonSettings['watch'] | undefined) ?? d.watch,
    watch_poll_ms: (watch_poll_ms as number | undefined) ?? d.watch_poll_ms,
  };
}

/** settings@1's own parse, with zod loaded now (synchronously: the daemon reads settings in synchronous code). */
export function parseSettingsStrictly(raw: unknown): ReturnType<ReturnType<typeof buildSettingsSchema>['safeParse']> {
  const { z: zod } = createRequire(import.meta.url)('zod') as typeof import('zod');
  return buildSettingsSchema(zod).safeParse(raw);
}

/** The root's settings; the defaults when the file is absent; SettingsError naming the file and the fix when it is wrong. */
export function loadSettings(root: string): { settings: DaemonSettings; file: string; present: boolean } {
  const file = join(root, SETTINGS_FILE);
  let text: string;
  try {
    const f = readPlantedText(rootRules(root), file, { maxBytes: SETTINGS_MAX_BYTES, what: 'settings file' });
    if (f === null) return { settings: defaultSettings(), file, present: false };
    text = f.text;
  } catch (err) {
    if (err instanceof UnsafeFileError) throw new SettingsError(err.message, file, err.fix);
    throw new SettingsError(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, file, `make ${file} readable by the daemon's user, or remove it to use the defaults`);
  }
  const parsed = parseJsonQuiet(text);
  if ('problem' in parsed) {
    throw new SettingsError(`${file}: ${parsed.problem}`, file, `correct the JSON in ${file} (docs/operating.md, "Settings", shows every field), or remove it to use the defaults`);
  }
  const raw = parsed.value;
  const quick = acceptSettings(raw);
  if (quick) return { settings: quick, file, present: true };
  const r = parseSettingsStrictly(raw);
  if (!r.success) {
    const problems = r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(top)'}: ${i.message}`).join('; ');
    throw new SettingsError(`${file}: ${problems}`, file, `correct ${file} (docs/operating.md, "Settings", lists every field and its default), or remove it to use the defaults`);
  }
  return { settings: r.data, file, present: true };
}
