#!/usr/bin/env node
/**
 * `pico`: the command line. One file per command under src/cli/, each
 * exporting `main(argv): Promise<exitCode>`; this file only dispatches, and
 * loads a command's module on demand so `pico daemon` never pays for the
 * model runtime or the memory index it does not use. Exit codes: see args.ts.
 */
import { resolve } from 'node:path';
import { EXIT } from './args.js';
import { nearest } from '../base/near.js';
import { assertRootOwner } from './owner.js';
import { rootProblem, type RootFrom, type RootMode } from '../root/place.js';
import { isStorageError, storageCode, storageFix } from '../base/storage-error.js';

/**
 * A command whose build made a bundle of it (scripts/bundles.mjs: the daemon) runs from that, one
 * file through the code cache the build's warm-up kept for these node flags (base/bundle-run.ts,
 * issue 32); else, and where there is no such cache, from its modules.
 */
async function bundledOr<T>(name: string, modules: () => Promise<T>): Promise<T> {
  const { currentBundle, runBundle } = await import('../base/bundle-run.js');
  const bundle = currentBundle(name);
  const run = bundle ? runBundle(bundle, 'warm-up') : null;
  return run ? (run.exports as T) : modules();
}

/**
 * `writes`: where the command finds the root it may write into (it then runs only as the root's
 * owner, see owner.ts). `root`: `named` when the command works without a root and checks one only
 * when --root or PICO_ROOT names it (default: it needs one, from --root, PICO_ROOT or the current
 * folder; src/root/place.ts checks it).
 */
type Command = { summary: string; writes?: 'flag' | 'positional'; root?: 'named'; inboxGroupMay?: true | ((argv: readonly string[]) => boolean); load: () => Promise<{ main: (argv: string[]) => Promise<number> }> };

const COMMANDS: Record<string, Command> = {
  init: { summary: 'create a root with the shipped defaults: pico init DIR', writes: 'positional', load: () => import('./init.js') },
  ask: { summary: 'ask a question: answered in the foreground, or --submit to the daemon and followed: pico ask "QUESTION" [--submit] [--root DIR] [--json]', writes: 'flag', inboxGroupMay: (argv) => argv.includes('--submit'), load: () => import('./ask.js') },
  run: { summary: 'run one job in the foreground: pico run JOB.json [--root DIR] [--json]', writes: 'flag', load: () => import('./run.js') },
  plan: { summary: 'plan a goal without running it: pico plan GOAL [--provider ID] [--json]', writes: 'flag', load: () => import('./plan.js') },
  call: { summary: 'one reduce step through policy and validation: pico call CAP --schema ID --input FILE [--provider ID]', writes: 'flag', load: () => import('./call.js') },
  daemon: { summary: 'run the service: watch sessions/inbox/ and run jobs one at a time', writes: 'flag', load: () => bundledOr('daemon.cjs', () => import('./daemon.js')) },
  submit: { summary: 'submit a job file to a running daemon: pico submit FILE [--root DIR]', writes: 'flag', inboxGroupMay: true, load: () => import('./submit.js') },
  status: { summary: 'what the daemon is doing, and what needs a person: pico status [--root DIR] [--json]', load: () => import('./status.js') },
  jobs: { summary: 'list jobs: pico jobs [--state queued|running|waiting|done] [--limit N] [--root DIR] [--json]', load: () => import('./jobs.js') },
  cancel: { summary: 'cancel a job that has not ended: pico cancel JOB [--wait SECONDS] [--root DIR]', writes: 'flag', load: () => import('./cancel.js') },
  retry: { summary: 'submit an ended job again as a new job: pico retry JOB [--root DIR]', writes: 'flag', load: () => import('./retry.js') },
  doctor: { summary: 'check this machine and root: pico doctor [--root DIR] [--json] (exit 1 when a check fails)', root: 'named', load: () => import('./doctor.js') },
  approve: { summary: 'approve a destructive step that waits: pico approve SESSION [STEP] [--root DIR]', writes: 'flag', load: () => import('./approve.js') },
  deny: { summary: 'deny a destructive step that waits: pico deny SESSION [STEP] [--reason TEXT] [--root DIR]', writes: 'flag', load: () => import('./deny.js') },
  watch: { summary: 'follow a job live: pico watch JOB [--root DIR]', load: () => import('./watch.js') },
  show: { summary: 'print a session transcript: pico show SESSION [--full] [--root DIR]', load: () => import('./show.js') },
  check: { summary: 'verify every session: ledgers dense, results agree, blobs match: pico check [SESSION] [--root DIR] [--json]', load: () => import('./check.js') },
  replay: { summary: 're-run a finished session (or --all: every one) and diff the ledgers: pico replay (SESSION | --all) [--root DIR] [--keep]; under another policy: pico replay (SESSION | --all) --policy FILE', writes: 'flag', load: () => import('./replay.js') },
  composition: { summary: 'print the composition document: pico composition [SESSION] [--root DIR]', load: () => import('./composition.js') },
  manifests: { summary: 'check every manifest: pico manifests check [--root DIR]', load: () => import('./manifests.js') },
  ladder: { summary: 'run the validation ladder on text from stdin: pico ladder --schema FILE', root: 'named', load: () => import('./ladder.js') },
  recall: { summary: 'search memory: pico recall QUERY [--for-control]', writes: 'flag', load: () => import('./recall.js') },
  failures: { summary: 'failure memory: pico failures list | report [--name N] | sql', writes: 'flag', load: () => import('./failures.js') },
  cost: { summary: 'measured costs: pico cost [PROVIDER]', writes: 'flag', load: () => import('./cost.js') },
  memory: { summary: 'the memory index: pico memory rebuild | stats', writes: 'flag', load: () => import('./memory.js') },
  gc: { summary: 'remove or archive old finished sessions: pico gc --older-than 30d [--archive] [--dry-run] [--json]', writes: 'flag', load: () => import('./gc.js') },
  provision: { summary: 'install a GGUF model as a provider: pico provision FILE.gguf --id ID --implements CAP', writes: 'flag', load: () => import('./provision.js') },
  models: { summary: 'the model providers, their files, speed and last use: pico models [--json] | pico models rm ID', load: () => import('./models.js') },
  probe: { summary: 'measure a model provider on this machine: pico probe ID', writes: 'flag', load: () => import('./probe.js') },
  report: { summary: 'one self-contained HTML page of recent jobs, failures and gaps: pico report [--out FILE.html] [--days N] [--json]', load: () => import('./report.js') },
  fleet: { summary: 'join boxes into a fleet over NATS JetStream: pico fleet agent | hub | status | submit JOB --to box=NAME|model=ID|cap=CAP | watch ID | jobs', load: () => import('./fleet.js') },
  eval: { summary: 'compare harness modes on a case file (pico eval CASES --provider ID [--modes LIST] [--recorded]), or measure the agent on a goal file (pico eval --goals FILE) [--json]', writes: 'flag', root: 'named', load: () => import('./eval.js') },
};

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  return ['usage: pico COMMAND [options]   (every command takes --root DIR, default: the current directory, and --json)', '       pico --version [--json]', '',
    ...Object.entries(COMMANDS).map(([k, c]) => `  ${k.padEnd(width)}  ${c.summary}`)].join('\n');
}

/** The root --root or PICO_ROOT names, as the command's own parser will read it; null when neither does. */
function namedRoot(rest: readonly string[]): { dir: string; shown: string; from: RootFrom } | null {
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--') break;
    if (rest[i] === '--root' && rest[i + 1] !== undefined) return { dir: resolve(rest[i + 1]!), shown: rest[i + 1]!, from: 'flag' };
    if (rest[i]!.startsWith('--root=')) return { dir: resolve(rest[i]!.slice('--root='.length)), shown: rest[i]!.slice('--root='.length), from: 'flag' };
  }
  return process.env.PICO_ROOT ? { dir: resolve(process.env.PICO_ROOT), shown: process.env.PICO_ROOT, from: 'env' } : null;
}

interface RootUse { dir: string; shown: string; from: RootFrom; mode: RootMode; writes: boolean }

/** The root a command works on, how (uses it, may make it, writes a hub into it) and whether it writes; null: it takes none. */
function rootUse(name: string, cmd: Command, rest: readonly string[]): RootUse | null {
  if (cmd.writes === 'positional') {
    const dir = rest.find((a) => !a.startsWith('-'));
    return dir === undefined ? null : { dir: resolve(dir), shown: dir, from: 'argument', mode: 'make', writes: true };
  }
  const named = namedRoot(rest);
  const here = named ?? { dir: process.cwd(), shown: process.cwd(), from: 'cwd' as const };
  if (name === 'fleet') {
    // the agent works beside a box's daemon, on its root; the hub writes its copies into a folder of its own
    const sub = rest.find((a) => !a.startsWith('-'));
    if (sub === 'agent') return { ...here, mode: 'use', writes: true };
    if (sub === 'hub') return { ...here, mode: 'folder', writes: true };
    return null;
  }
  if (cmd.root === 'named' && named === null) return null;
  const mode: RootMode = name === 'daemon' && rest.includes('--init') ? 'make' : 'use';
  return { ...here, mode, writes: cmd.writes !== undefined };
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    const { versionInfo } = await import('../base/version.js');
    const v = versionInfo();
    process.stdout.write(rest.includes('--json') ? JSON.stringify(v) + '\n' : `${v.name} ${v.version} (node ${v.node})\n`);
    return EXIT.ok;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help() + '\n');
    return name ? EXIT.ok : EXIT.usage;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    const near = nearest(name, Object.keys(COMMANDS));
    process.stderr.write(`pico: unknown command "${name}"${near ? ` (did you mean pico ${near}?)` : ''}\n` +
      `${near ? '' : `the commands: ${Object.keys(COMMANDS).join(', ')}\n`}fix: pico --help says what each does\n`);
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`pico ${name}: ${cmd.summary}\n`);
    return EXIT.ok;
  }
  try {
    const use = rootUse(name, cmd, rest);
    if (use) {
      const problem = rootProblem(use.dir, use.shown, use.from, use.mode, use.writes);
      if (problem) {
        process.stderr.write(`pico ${name}: ${problem.problem}\n${problem.fix ? `fix: ${problem.fix}\n` : ''}`);
        return EXIT.usage;
      }
      if (use.writes) assertRootOwner(use.dir, name, rest, typeof cmd.inboxGroupMay === 'function' ? cmd.inboxGroupMay(rest) : cmd.inboxGroupMay);
    }
    return await (await cmd.load()).main(rest);
  } catch (err) {
    // by name: a command run from its bundle (bundledOr) throws the bundle's own UsageError class
    if (err instanceof Error && err.name === 'UsageError') {
      process.stderr.write(`pico ${name}: ${err.message}\n`);
      return EXIT.usage;
    }
    // by name, not instanceof: importing registry/load.ts here would load the registry, the ladder
    // and zod into every command, the daemon included, which must stay small
    if (err instanceof Error && err.name === 'ManifestError') {
      process.stderr.write(`pico ${name}: the root's manifests do not load:\n${err.message}\n`);
      return EXIT.root;
    }
    if (err instanceof Error && err.name === 'SettingsError') {
      process.stderr.write(`pico ${name}: ${err.message}\nfix: ${(err as { fix?: string }).fix ?? ''}\n`);
      return EXIT.root;
    }
    if (err instanceof Error && err.name === 'LockHeld') {
      // not a bug: a second daemon was started on a root one already serves (src/daemon/lock.ts names it)
      process.stderr.write(`pico ${name}: ${err.message}\n`);
      return EXIT.usage;
    }
    if (err instanceof Error && (err.name === 'JobError' || err.name === 'LedgerError' || err.name === 'PackageRootError')) {
      const fix = (err as { fix?: string }).fix;
      process.stderr.write(`pico ${name}: ${err.message}${fix ? `\nfix: ${fix}` : ''}\n`);
      return EXIT.usage;
    }
    if (err instanceof Error && (err.name === 'StorageError' || isStorageError(err))) {
      process.stderr.write(`pico ${name}: the disk refused a write: ${err.message}\nfix: ${storageFix(storageCode(err) ?? 'EIO').replace('wait: the daemon retries by itself', 'run the command again')}\n`);
      return EXIT.root;
    }
    process.stderr.write(`pico ${name}: internal error (a bug; please report it with this trace):\n${(err as Error).stack ?? String(err)}\n`);
    return EXIT.internal;
  }
}

// `pico … | head`: when the reader goes away, what is left to print has no one to read it, so the
// command stops quietly instead of dying on an unhandled EPIPE with a stack trace
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok);
  });
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err: unknown) => { process.stderr.write(`${String(err)}\n`); process.exitCode = EXIT.internal; },
);
