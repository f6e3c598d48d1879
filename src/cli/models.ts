/**
 * `pico models [--root DIR] [--json]` and `pico models rm ID`: the root's
 * model providers — id, file, size, pinned sha256, measured decode tokens/s,
 * calls and last use from memory — and the files in models/ no manifest uses;
 * `rm` removes a provider's manifest and its file. Parsing and printing only
 * (src/models/). Exit 2 for an unknown id, 1 when a running job may use it.
 */
import { modelInventory, type Inventory } from '../models/inventory.js';
import { ModelInUse, removeModel, UnknownModel } from '../models/remove.js';
import { formatTable } from '../memory/table.js';
import { assertRootOwner } from './owner.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, unknownSubcommand, UsageError } from './args.js';

const USAGE = 'pico models [--root DIR] [--json] | pico models rm ID [--root DIR] [--json]';

const mb = (n: number | null): string => (n === null ? 'missing' : `${(n / 1e6).toFixed(1)} MB`);

function human(inv: Inventory): string {
  const out: string[] = [];
  if (inv.models.length === 0) out.push('no model providers (pico provision FILE.gguf --id ID --implements CAP adds one)');
  else {
    out.push(formatTable(['id', 'file', 'size', 'sha256', 'threads', 'decode_tok_s', 'calls', 'last_used'], inv.models.map((m) => ({
      id: m.id, file: m.file, size: mb(m.size), sha256: `${m.sha256.slice(0, 12)}…`, threads: m.threads ?? '—',
      decode_tok_s: m.decode_tokens_per_s === null ? 'not probed' : m.decode_tokens_per_s.toFixed(1), calls: m.calls ?? '—',
      last_used: m.last_used ? `${m.last_used} (${m.last_session})` : m.calls === null ? 'unknown' : 'never',
    }))));
  }
  if (!inv.memory && inv.models.length > 0) out.push('no memory index yet, so calls and last use are unknown (the daemon builds it; or pico memory rebuild)');
  if (inv.unused.length > 0) out.push('', 'files in models/ no manifest uses (delete them, or pico provision them):', ...inv.unused.map((u) => `  ${u.file}  ${mb(u.size)}`));
  return out.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  const root = rootOf(values);
  if (positionals.length === 0) {
    const inv = modelInventory(root);
    for (const p of inv.problems) process.stderr.write(`pico models: ${p}\n`);
    emit(!!values.json, inv, () => human(inv));
    return EXIT.ok;
  }
  if (positionals[0] !== 'rm') throw unknownSubcommand(positionals[0], ['rm'], USAGE);
  if (positionals.length !== 2) throw new UsageError(`name the one model provider to remove (pico models lists them)\nusage: ${USAGE}`);
  assertRootOwner(root, 'models', argv); // listing reads; rm writes, so it runs as the root's owner (owner.ts)
  try {
    const r = removeModel(root, positionals[1]!);
    emit(!!values.json, r, () => [
      `removed ${r.manifest}`,
      r.file ? `removed ${r.file}` : `kept the weights: ${r.kept}`,
      ...(r.daemon ? ['the daemon serves this root: its worker forgets the model at its next start (systemctl reload picoharness, or SIGHUP, makes that now)'] : []),
    ].join('\n'));
    return EXIT.ok;
  } catch (e) {
    if (e instanceof UnknownModel) throw new UsageError(e.message);
    if (e instanceof ModelInUse) {
      process.stderr.write(`pico models rm: ${e.message}\n`);
      return EXIT.negative;
    }
    throw e;
  }
}
