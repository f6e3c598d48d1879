/**
 * `pico eval` as a function: read the root and the case file, choose the
 * seam (recorded text, a cassette, or a live provider — recorded if asked),
 * run every case under every mode, and return the summary and the results.
 * The CLI (cli/eval.ts) and `pico provision --eval` both call `evaluate`.
 *
 * Which modes run: the ones asked for, else every mode the source supports
 * (recorded text: raw, extract, ladder; a shell provider: all but grammar;
 * a replay: the recorded ones). Asking for a mode the source cannot run is
 * an input error, never a silently empty row.
 */
import path from 'node:path';
import { loadRoot } from '../registry/load.js';
import type { ProviderManifest } from '../registry/manifest.js';
import { checkLive, checkRecorded, EvalInputError, readCaseFile } from './cases.js';
import { player, recorder, type RunHeader } from './cassette.js';
import { LIVE_ONLY, MODES, type Mode } from './modes.js';
import { DEFAULT_VARIANT, variantDigest, type PromptVariant } from './prompt.js';
import { modesFor, openProvider, unsupported } from './provider.js';
import { runCase, scoreRecorded, type Caller, type CaseResult } from './run.js';
import { summarize, type ModeSummary, type RunInfo } from './table.js';

export { EvalInputError } from './cases.js';
export { ProviderUnavailable } from './run.js';

export interface EvalOptions {
  casesPath: string;
  root: string;
  provider?: string;
  modes?: Mode[];
  variant?: PromptVariant;
  recorded?: boolean;
  record?: string;
  replay?: string;
  /** only the first N cases (of a replay: of the cases the cassette holds) */
  limit?: number;
  /** told after each case: how many are done of how many (pico eval's progress line) */
  onCase?: (done: number, total: number) => void;
}

export interface EvalRun {
  info: RunInfo;
  modes: Mode[];
  summary: Partial<Record<Mode, ModeSummary>>;
  results: CaseResult[];
  provider: ProviderManifest | null;
  casesDigest: string;
  variantDigest: string | null;
}

/** A short name for a variant: compact/0-shot/json-only. */
export function variantName(v: PromptVariant): string {
  return `${v.tools}/${v.shots}-shot/${v.json_only ? 'json-only' : 'no-json-instruction'}`;
}

/** Check the asked-for modes against what the source can run. */
function chooseModes(asked: Mode[] | undefined, possible: Mode[], source: string): Mode[] {
  if (!asked) return possible;
  const bad = asked.filter((m) => !possible.includes(m));
  if (bad.length) throw new EvalInputError(`--modes: ${bad.join(', ')} cannot run on ${source} (it offers ${possible.join(', ')})`);
  return asked;
}

/** Run an evaluation. */
export async function evaluate(o: EvalOptions): Promise<EvalRun> {
  const loaded = loadRoot(o.root);
  const file = readCaseFile(path.resolve(o.casesPath), { tools: loaded.documents.tools, schemas: loaded.documents.schemas as Record<string, Record<string, unknown>> });
  let cases = o.limit ? file.cases.slice(0, o.limit) : file.cases;
  const base = { cases_path: o.casesPath, cases_digest: file.digest };

  if (o.recorded) {
    if (o.provider || o.replay || o.record) throw new EvalInputError('--recorded scores the text already in the case file: it takes no --provider, --record or --replay');
    checkRecorded({ ...file, cases });
    const modes = chooseModes(o.modes, MODES.filter((m) => !LIVE_ONLY.includes(m)), 'recorded text (retry and grammar need a model)');
    const results = cases.map((c) => scoreRecorded(c, modes));
    const info: RunInfo = { ...base, provider: null, identity: null, variant: 'none (recorded text)', variant_digest: null, source: 'recorded' };
    return { info, modes, summary: summarize(results, modes), results, provider: null, casesDigest: file.digest, variantDigest: null };
  }

  checkLive({ ...file, cases });
  let call: Caller;
  let close = async () => undefined as void;
  let header: Omit<RunHeader, 'recorded_at'>;
  let provider: ProviderManifest | null = null;
  if (o.replay) {
    if (o.record) throw new EvalInputError('--replay and --record together: a replay makes no model calls to record');
    const p = player(o.replay);
    if (o.provider && o.provider !== p.header.provider.id) throw new EvalInputError(`--provider ${o.provider}: the cassette ${o.replay} holds provider "${p.header.provider.id}"; drop --provider or replay another cassette`);
    if (o.variant && variantDigest(o.variant) !== p.header.variant_digest) throw new EvalInputError(`--replay ${o.replay}: the cassette was recorded with prompt variant ${variantName(p.header.variant)}; drop the variant flags or record again`);
    call = p.call;
    header = { ...p.header, modes: chooseModes(o.modes, p.header.modes, `the cassette ${o.replay}`) };
    // a replay runs the cases the cassette holds (a recording made with --limit holds the first N), in its order
    const ids = p.header.cases.ids;
    if (ids) {
      const byId = new Map(file.cases.map((c) => [c.id, c]));
      const absent = ids.filter((id) => !byId.has(id));
      if (absent.length) throw new EvalInputError(`--replay ${o.replay}: the cassette holds case(s) ${absent.slice(0, 5).map((id) => `"${id}"`).join(', ')}${absent.length > 5 ? ` and ${absent.length - 5} more` : ''} that ${o.casesPath} does not; replay it with the case file it was recorded from (${p.header.cases.path})`);
      if (o.limit !== undefined && o.limit > ids.length) throw new EvalInputError(`--limit ${o.limit}: the cassette ${o.replay} holds ${ids.length} cases; give --limit ${ids.length} or less, or leave it out`);
      cases = ids.slice(0, o.limit ?? ids.length).map((id) => byId.get(id)!);
    }
  } else {
    if (!o.provider) throw new EvalInputError('--provider ID is required (or --recorded, or --replay DIR)');
    const p = loaded.documents.providers[o.provider];
    if (!p) throw new EvalInputError(`--provider ${o.provider}: no such provider in ${o.root}/manifests/providers/; known: ${Object.keys(loaded.documents.providers).sort().join(', ') || '(none)'}`);
    const why = unsupported(p);
    if (why) throw new EvalInputError(why);
    provider = p;
    const variant = o.variant ?? DEFAULT_VARIANT;
    const live = openProvider(p, o.root);
    close = live.close;
    call = live.call;
    header = {
      cassette: 'eval-cassette@1', provider: { id: p.id, kind: p.kind, identity: live.identity }, variant, variant_digest: variantDigest(variant),
      cases: { path: o.casesPath, digest: file.digest, count: cases.length, ids: cases.map((c) => c.id), limit: o.limit ?? null }, modes: chooseModes(o.modes, modesFor(p), `a ${p.kind} provider`),
    };
  }
  const rec = o.record ? recorder(call) : null;
  const results: CaseResult[] = [];
  try {
    for (const c of cases) {
      results.push(await runCase(c, header.modes, header.variant, rec?.call ?? call));
      o.onCase?.(results.length, cases.length);
    }
  } finally {
    await close();
  }
  rec?.save(o.record!, { ...header, recorded_at: new Date().toISOString() });
  const info: RunInfo = {
    ...base, provider: header.provider.id, identity: header.provider.identity, variant: variantName(header.variant),
    variant_digest: header.variant_digest, source: o.replay ? 'replay' : 'live',
  };
  return { info, modes: header.modes, summary: summarize(results, header.modes), results, provider, casesDigest: file.digest, variantDigest: header.variant_digest };
}
