/**
 * `pico gc --older-than AGE [--archive] [--dry-run] [--root DIR] [--json]`:
 * retention by hand — remove (or archive, one .tar.gz per month under
 * sessions/archive/) the finished sessions and rejected entries that ended
 * more than AGE ago, keeping the memory index consistent. Parsing and
 * printing only; the work is src/retention/gc.ts.
 */
import { collectGarbage, type GcReport } from '../retention/gc.js';
import { DurationError, parseDuration } from '../retention/duration.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico gc --older-than AGE [--archive] [--dry-run] [--root DIR] [--json]   (AGE: 90m, 12h, 30d, 2w)';

/** Bytes for a person: 0 B, 12.3 kB, 4.5 MB, 1.2 GB. */
export function formatBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`;
}

function human(r: GcReport): string {
  const verb = r.dry_run ? (r.archive ? 'would archive' : 'would remove') : r.archive ? 'archived' : 'removed';
  const lines = r.items.map((i) => `  ${i.kind === 'session' ? i.name : `rejected/${i.name}`}  ended ${i.ended_at}  ${formatBytes(i.bytes)}${i.archive ? `  → ${i.archive}` : ''}`);
  lines.push(`${verb} ${r.sessions} session(s) and ${r.rejected} rejected entr${r.rejected === 1 ? 'y' : 'ies'} that ended before ${r.cutoff}: ${formatBytes(r.bytes)} ${r.dry_run ? 'would be ' : ''}freed`);
  if (r.finished_leftovers > 0) lines.push(`finished ${r.finished_leftovers} removal(s) an interrupted run left in sessions/.trash/`);
  for (const k of r.kept) lines.push(`kept ${k.name}: ${k.why}`);
  if (r.more) lines.push('more remain: run pico gc again');
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...rootOption, ...jsonOption, 'older-than': { type: 'string' }, archive: { type: 'boolean' }, 'dry-run': { type: 'boolean' },
  }, USAGE);
  if (positionals.length > 0) throw new UsageError(`takes no positional arguments, got ${JSON.stringify(positionals)}\nusage: ${USAGE}`);
  if (values['older-than'] === undefined) throw new UsageError(`say how old a finished session must be to go: --older-than 30d\nusage: ${USAGE}`);
  let olderThanMs: number;
  try {
    olderThanMs = parseDuration(values['older-than']);
  } catch (e) {
    if (e instanceof DurationError) throw new UsageError(`--older-than: ${e.message}\nusage: ${USAGE}`);
    throw e;
  }
  const r = await collectGarbage({ root: rootOf(values), olderThanMs, archive: !!values.archive, dryRun: !!values['dry-run'] });
  emit(!!values.json, r, () => human(r));
  return EXIT.ok;
}
