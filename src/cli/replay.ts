/**
 * `pico replay SESSION [--root DIR] [--json] [--keep]`: re-run a finished
 * session from its recorded inputs and blobs and diff the ledgers. Exit 0
 * when identical; 1 with the first difference (or the composition
 * difference, when the session was recorded under another composition).
 */
import { createLogger } from '../log.js';
import { replaySession } from '../runtime/replay.js';
import { openRuntime } from '../runtime/runtime.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico replay SESSION [--root DIR] [--json] [--keep]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption, keep: { type: 'boolean' } }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`name one session\nusage: ${USAGE}`);
  const rt = await openRuntime(rootOf(values), { log: createLogger({ to: 'stderr', level: 'warn' }) });
  try {
    const r = await replaySession(rt, positionals[0]!, { keep: !!values.keep });
    emit(!!values.json, r, () => {
      if (r.compositionDiffers) return `refused: session ${r.session} was recorded under another composition; differences:\n  ${r.compositionDiffers.join('\n  ')}`;
      if (r.identical) return `identical: ${r.lines.original} events replayed byte for byte`;
      const d = r.firstDifference!;
      return `differs at line ${d.line} (original ${r.lines.original} lines, replay ${r.lines.replayed}):\n- ${d.original ?? '(none)'}\n+ ${d.replayed ?? '(none)'}`;
    });
    return r.identical ? EXIT.ok : EXIT.negative;
  } finally {
    await rt.close();
  }
}
