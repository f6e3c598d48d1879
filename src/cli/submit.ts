/**
 * `pico submit FILE --root DIR` — hand a job file to the daemon the safe way.
 *
 * The job is checked first (a bad job is refused here, with the fix, instead
 * of landing in sessions/rejected/), then written under a dot-name in the
 * inbox, fsynced, and renamed to `<session-id>.json`: the daemon never sees a
 * partial file, and the printed id is the session id it will use. Submitting
 * the same file twice makes two jobs. When no daemon serves the root, the job
 * is still submitted (it runs when one starts: exit 0), and stderr says so; a
 * job refused here is the user's mistake (exit 2, as `pico run` gives it),
 * with how to start one; `--json` carries it as `served: false`. The job file is written group-readable
 * (umask 0027) whatever the caller's umask: the daemon may be another user of
 * the root's group (systemd/install.sh), and must be able to read it. Logic
 * lives in src/daemon/submit.ts.
 */
import { submitJobFile } from '../daemon/submit.js';
import { daemonPaths } from '../daemon/paths.js';
import { whyUnserved } from '../daemon/status.js';
import { EXIT, jsonOption, parse, rootOf, rootOption } from './args.js';

const USAGE = 'pico submit FILE [--root DIR] [--json]';

/** Entry point of `pico submit`. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  if (positionals.length !== 1) {
    process.stderr.write(`pico submit: expected exactly one job FILE, got ${positionals.length}\nusage: ${USAGE}\n`);
    return EXIT.usage;
  }
  process.umask(0o027);
  const r = await submitJobFile(positionals[0]!, rootOf(values));
  if (!r.ok) {
    if (values.json) process.stdout.write(JSON.stringify({ ok: false, problem: r.problem, fix: r.fix }) + '\n');
    else process.stderr.write(`pico submit: ${r.problem}\nfix: ${r.fix}\n`);
    return EXIT.usage;
  }
  const root = rootOf(values);
  const unserved = whyUnserved(daemonPaths(root));
  if (values.json) process.stdout.write(JSON.stringify({ ok: true, job: r.id, session: r.id, inbox_file: r.path, served: unserved === null, ...(unserved ? { unserved } : {}) }) + '\n');
  else process.stdout.write(`${r.id}\n`);
  if (unserved) process.stderr.write(`pico submit: no daemon serves ${root} (${unserved}): job ${r.id} waits in the inbox until one runs; start it with \`pico daemon --root ${root}\` (npm start in a checkout, systemctl start picoharness when installed)\n`);
  return 0;
}
