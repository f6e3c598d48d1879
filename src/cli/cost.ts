/**
 * `pico cost [PROVIDER] [--schema S] [--stale-factor F] [--no-ingest] [--root DIR] [--json]`:
 * what providers cost on this machine — measured p50/p90 from five calls up,
 * the manifest's declared cost below that (and it says so) — plus the
 * manifests whose declared cost is far from what was measured. Its advice is
 * printed whole, and what it tells a person to run is the exact command for
 * this root (`pico probe ID --root DIR` for a gguf provider; any other kind is
 * measured by running it, or its manifest's `cost` is corrected by hand).
 */
import { join } from 'node:path';
import { openForCli } from '../memory/cli-open.js';
import { providerManifestsDirFor } from '../memory/paths.js';
import { formatTable } from '../memory/table.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

/** The manifest id of a provider identity (`tiny@sha256:…` is the manifest `tiny`). */
const manifestId = (provider: string): string => provider.replace(/@.*$/, '');

const USAGE = 'pico cost [PROVIDER] [--schema S] [--stale-factor F] [--no-ingest] [--root DIR] [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...rootOption, ...jsonOption, schema: { type: 'string' }, 'stale-factor': { type: 'string' }, 'no-ingest': { type: 'boolean' },
  }, USAGE);
  if (positionals.length > 1) throw new UsageError(`name at most one provider\nusage: ${USAGE}`);
  const factor = values['stale-factor'] === undefined ? 2 : Number(values['stale-factor']);
  if (!(factor > 1)) throw new UsageError(`--stale-factor must be a number above 1, got "${values['stale-factor']}"`);
  const root = rootOf(values);
  const provider = positionals[0];
  const { ix, warning } = openForCli(root, !values['no-ingest']);
  if (warning) process.stderr.write(`pico cost: ${warning}\n`);
  try {
    const cm = ix.cost(providerManifestsDirFor(root));
    for (const p of cm.problems) process.stderr.write(`pico cost: ${p}\n`);
    let estimates = provider !== undefined && values.schema !== undefined
      ? [cm.estimate(provider, values.schema)]
      : cm.all(provider);
    if (values.schema !== undefined) estimates = estimates.filter((e) => e.schema === values.schema);
    const stale = cm.staleManifests({ factor }).filter((s) => provider === undefined || s.provider === provider);
    emit(!!values.json, { estimates, stale }, () => {
      const rows = estimates.map((e) => ({
        provider: e.provider, schema: e.schema, n: e.n, p50_ms: e.p50_ms, p90_ms: e.p90_ms, source: e.source,
        declared_p90: e.manifest?.p90_ms ?? null, note: e.note,
      }));
      // the note is advice: it is printed whole, and what it says to run is spelled out below with this root
      const out = [formatTable(['provider', 'schema', 'n', 'p50_ms', 'p90_ms', 'source', 'declared_p90', 'note'], rows, { whole: ['note'] })];
      if (stale.length > 0) {
        out.push('', `stale manifests (declared cost off by more than x${factor} from what was measured):`,
          formatTable(['provider', 'schema', 'n', 'ratio_p50', 'ratio_p90'], stale.map((s) => ({ ...s }))));
        const kindOf = new Map(estimates.map((e) => [e.provider, e.kind]));
        for (const p of [...new Set(stale.filter((s) => kindOf.get(s.provider) !== 'gguf').map((s) => manifestId(s.provider)))]) {
          out.push(`  ${p}: not a model, so not probed: correct "cost" in ${join(providerManifestsDirFor(root), `${p}.json`)} to the measured p50/p90 above (pico cost ${p} --root ${root})`);
        }
      }
      // advice names the manifest id (a model's calls are recorded under its pinned identity, tiny@sha256:…)
      const probe = [...new Set([...estimates.filter((e) => e.source === 'none').map((e) => e.provider), ...stale.map((s) => s.provider)]
        .filter((p) => estimates.find((e) => e.provider === p)?.kind === 'gguf').map(manifestId))];
      if (probe.length > 0) out.push('', 'to measure the models on this machine:', ...probe.map((p) => `  pico probe ${p} --root ${root}`));
      return out.join('\n');
    });
    return estimates.length > 0 ? EXIT.ok : EXIT.negative;
  } finally {
    ix.close();
  }
}
