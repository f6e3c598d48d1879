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
 * The file is checked by settings@1, the zod schema below, and by nothing
 * else: one definition of the contract, its defaults included.
 */
import { join } from 'node:path';
import { parseJsonQuiet, readPlantedText, rootRules, UnsafeFileError } from '../base/safe-open.js';
import { z } from '../base/zod.js';

export const SETTINGS_FILE = 'settings.json';
/** settings.json is a handful of fields: anything bigger is not one */
const SETTINGS_MAX_BYTES = 64 * 1024;

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
const WATCH_MODES = ['auto', 'events', 'polling'] as const;

/** `127.0.0.1:PORT`, `[::1]:PORT`, `localhost:PORT` or `unix:PATH` (the API listens on loopback only). */
export const LISTEN_PATTERN = /^(?:unix:.+|(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\]):\d{1,5})$/;

/** settings@1: what settings.json may hold, and the default of every field left out. */
export const settingsSchema = z.strictObject({
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

export type DaemonSettings = z.infer<typeof settingsSchema>;

export class SettingsError extends Error {
  override name = 'SettingsError';
  constructor(message: string, readonly file: string, readonly fix: string) {
    super(message);
  }
}

/** The defaults, as if the file held only `{"settings": "settings@1"}`. */
export function defaultSettings(): DaemonSettings {
  return settingsSchema.parse({ settings: 'settings@1' });
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
  const r = settingsSchema.safeParse(parsed.value);
  if (!r.success) {
    const problems = r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(top)'}: ${i.message}`).join('; ');
    throw new SettingsError(`${file}: ${problems}`, file, `correct ${file} (docs/operating.md, "Settings", lists every field and its default), or remove it to use the defaults`);
  }
  return { settings: r.data, file, present: true };
}
