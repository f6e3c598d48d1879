/**
 * `pico composition [SESSION] [--root DIR] [--hash]`: print the composition
 * document — the current one of the root, or the one a session recorded
 * beside its ledger. `--hash` prints only its sha256 (and the machine hash).
 */
import { unreadable } from '../base/named-file.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compositionHash, COMPOSITION_FILE, type Composition } from '../ledger/composition.js';
import { createLogger } from '../base/log.js';
import { openRuntime } from '../root/runtime.js';
import { EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico composition [SESSION] [--root DIR] [--hash]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption, hash: { type: 'boolean' } }, USAGE);
  if (positionals.length > 1) throw new UsageError(`name at most one session\nusage: ${USAGE}`);
  const root = rootOf(values);
  let doc: Composition;
  let machine: string | null = null;
  if (positionals[0]) {
    const path = join(root, 'sessions', positionals[0], COMPOSITION_FILE);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new UsageError((err as NodeJS.ErrnoException).code === 'ENOENT'
        ? `no session ${positionals[0]} under ${join(root, 'sessions')} (no file ${path}); name a session folder (pico jobs lists them)`
        : `${unreadable(path, err, 'composition document').problem}`);
    }
    try {
      doc = JSON.parse(text) as Composition;
    } catch (err) {
      throw new UsageError(`${path} is not JSON (${(err as Error).message}); pico check ${positionals[0]} says what is damaged`);
    }
  } else {
    const rt = await openRuntime(root, { log: createLogger({ to: 'stderr', level: 'warn' }) });
    const c = rt.currentComposition();
    doc = c.doc;
    machine = c.machine;
    await rt.close();
  }
  const hash = compositionHash(doc);
  if (values.hash) process.stdout.write(values.json ? JSON.stringify({ hash, machine }) + '\n' : `${hash}${machine ? `\nmachine ${machine}` : ''}\n`);
  else process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  return EXIT.ok;
}
