/**
 * Deterministic replay (design §2): run a finished session again from its
 * recorded inputs — the job, the policy snapshot, the tool outputs in its
 * blobs — with a clock that answers with the recorded times and durations,
 * into a scratch folder, and diff the two ledgers line by line. Code
 * providers and seeded models give an identical ledger; any difference is
 * reported at its first line. A session recorded under manifests the root no
 * longer has (a model removed since) runs under the manifests it recorded
 * (recorded.ts); one whose code, prompts or programs differ is refused,
 * naming the difference, and so is one that records a provider that would
 * run something this root does not hold (admit.ts): a planted session never
 * makes replay run its program.
 *
 * Every file of the session is read through safe-open (src/base/): a FIFO,
 * a link to /dev/zero or a foreign file in a session folder is refused with
 * its name, never opened as it is, so replay cannot hang on one.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { readPlanted, readPlantedText, rootRules, type RootRules } from '../base/safe-open.js';
import { ProviderError } from '../runtime/provider.js';
import { withoutClippedNote } from '../runtime/budget.js';
import { BLOB_PREFIX, sha256Hex } from '../ledger/blobs.js';
import { replayClock } from '../ledger/clock.js';
import { diffCompositions, COMPOSITION_FILE, type Composition } from '../ledger/composition.js';
import type { LedgerEvent } from '../ledger/events.js';
import { damageMessage, LEDGER_FILE } from '../ledger/ledger.js';
import { scanLedger } from '../ledger/scan.js';
import { parseJob } from '../runtime/job.js';
import type { Runtime } from '../root/runtime.js';
import { unadmittedProviders } from './admit.js';
import { openRecorded } from './recorded.js';
import type { ApprovalDecider, DirectInput, ToolRunner } from '../runtime/step.js';

/** Caps of the session files replay reads, in bytes. */
const MAX_LEDGER_BYTES = 1024 ** 3;
const MAX_DOCUMENT_BYTES = 64 * 1024 ** 2;
const MAX_BLOB_BYTES = 256 * 1024 ** 2;

/** A session's recorded ledger, read safely: its events and its lines as text. */
interface Original {
  events: LedgerEvent[];
  lines: string[];
}

export interface ReplayReport {
  session: string;
  identical: boolean;
  lines: { original: number; replayed: number };
  firstDifference: { line: number; original: string | null; replayed: string | null } | null;
  compositionDiffers: string[] | null;
}

/** Re-run a session and compare ledgers. */
export async function replaySession(rt: Runtime, sessionId: string, opts: { keep?: boolean } = {}): Promise<ReplayReport> {
  const dir = resolve(rt.sessionDir(sessionId)); // safe-open takes paths under the root, absolute
  const rules = rootRules(dirname(dir)); // the sessions folder's: it may be a mount of its own
  const ledger = readPlanted(rules, join(dir, LEDGER_FILE), { maxBytes: MAX_LEDGER_BYTES, what: 'ledger' });
  if (!ledger) throw new Error(`${join(dir, LEDGER_FILE)} does not exist; name a session folder under sessions/ (pico status lists recent ones)`);
  const scan = scanLedger(ledger.bytes);
  if (scan.damage) throw new Error(damageMessage(ledger.path, scan.damage));
  const original: Original = { events: scan.events, lines: ledger.bytes.subarray(0, scan.intactBytes).toString('utf8').split('\n').filter(Boolean) };
  const comp = original.events[0];
  if (!comp || comp.type !== 'composition') throw new Error(`${dir}: the ledger does not start with a composition event`);
  if (!original.events.some((e) => e.type === 'answer_sent')) throw new Error(`session ${sessionId} has not finished; replay compares finished sessions`);
  if (comp.hash !== rt.currentComposition().hash) {
    // the root's manifests changed since: run under the ones the session recorded, when the rest is as it was
    const doc = readPlantedText(rules, join(dir, COMPOSITION_FILE), { maxBytes: MAX_DOCUMENT_BYTES, what: 'composition document', linked: true });
    if (!doc) throw new Error(`${join(dir, COMPOSITION_FILE)} does not exist; replay needs the composition the session recorded (pico check ${sessionId} says more)`);
    const stored = JSON.parse(doc.text) as Composition;
    // a provider that would run something this root does not hold is never loaded, let alone called
    const unadmitted = unadmittedProviders(stored, rt.currentComposition().doc, rt.root);
    if (unadmitted.length > 0) {
      return { session: sessionId, identical: false, lines: { original: original.lines.length, replayed: 0 }, firstDifference: null, compositionDiffers: unadmitted };
    }
    const recorded = await openRecorded(rt.root, stored, rt.log);
    try {
      const now = (recorded ?? rt).currentComposition();
      if (now.hash === comp.hash) return await replayOn(recorded!, sessionId, original, rules, opts);
      return {
        session: sessionId, identical: false, lines: { original: original.lines.length, replayed: 0 }, firstDifference: null,
        compositionDiffers: diffCompositions(stored, now.doc),
      };
    } finally {
      await recorded?.close();
    }
  }
  return replayOn(rt, sessionId, original, rules, opts);
}

/** The output an event holds, inline or in the session's blobs, read safely and checked against its hash. */
type OutputReader = (held: { blob: string | null; text?: string | undefined }) => string;

function recordedOutputs(rules: RootRules, dir: string): OutputReader {
  return (held) => {
    if (held.text !== undefined) return held.text;
    const hex = held.blob?.startsWith(BLOB_PREFIX) ? held.blob.slice(BLOB_PREFIX.length) : '';
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${dir}: an event cites the blob ${JSON.stringify(held.blob)}, which is not a sha256 reference`);
    const f = readPlanted(rules, join(dir, 'blobs', hex), { maxBytes: MAX_BLOB_BYTES, what: 'blob' });
    if (!f) throw new Error(`${join(dir, 'blobs', hex)}: a blob the ledger cites is missing (pico check says more)`);
    if (sha256Hex(f.bytes) !== hex) throw new Error(`${f.path}: the blob's content no longer hashes to its name (pico check says more)`);
    return f.bytes.toString('utf8');
  };
}

/** Replay a session on a runtime of its own composition. */
async function replayOn(rt: Runtime, sessionId: string, recordedLedger: Original, rules: RootRules, opts: { keep?: boolean }): Promise<ReplayReport> {
  const original = recordedLedger.events;
  const dir = resolve(rt.sessionDir(sessionId));
  const user = original.find((e) => e.type === 'user_input');
  if (!user || user.type !== 'user_input') throw new Error(`${dir}: the ledger has no user_input event`);
  const job = parseJob(user.job, `${dir} user_input.job`);
  const scratch = mkdtempSync(join(tmpdir(), `pico-replay-${sessionId}-`));
  try {
    const blobs = { read: recordedOutputs(rules, dir) };
    const inputs: Record<string, DirectInput> = {};
    if (job.label?.startsWith('pico call')) {
      for (const e of original) {
        if (e.type !== 'tool_output') continue;
        const started = original.find((s) => s.type === 'step_started' && s.step === e.step);
        inputs[e.step] = { text: blobs.read(e), trust: started?.type === 'step_started' ? started.trust : 'T1', label: e.tool };
      }
    }
    const onlyProvider = job.label?.match(/^pico call --provider (\S+)$/)?.[1];
    const run = { job, sessionDir: scratch, clock: replayClock(original), runTool: recordedTools(blobs, original), inputs, ...(onlyProvider ? { onlyProvider } : {}) };
    // An operator's cancel closes the steps a run has not done. When the original closed them on
    // resuming (the daemon's close run after a first run stopped between two steps: a `resumed`
    // event just before), replay stops its first run where the original did, then closes the rest
    // the same way; a session closed from its start is closed in one run.
    // A destructive step that waited for a person: the original stopped at the request and ran
    // again (`resumed`) once the decision was on disk. Replay runs as often, each run seeing only
    // the decisions the original took in that run, as the ledger recorded them.
    const resumes = original.filter((e) => e.type === 'resumed').map((e) => e.seq);
    const decisions = (i: number) => recordedDecisions(original, i === 0 ? -1 : resumes[i - 1]!, resumes[i] ?? Infinity);
    const cancel = original.find((e) => e.type === 'step_failed' && e.cancelled === true);
    if (cancel) {
      const closing = { ...run, closeReason: (cancel as { error: string }).error.replace(/^not run: /, ''), cancelled: true };
      if (original[cancel.seq - 1]?.type === 'resumed') {
        const last = cancel.seq - 2; // the first run's last event (a step, or a request that waits)
        const stop = new AbortController();
        if (last < 0) stop.abort();
        await rt.runSession(sessionId, { ...run, approval: decisions(0), signal: stop.signal, onEvent: (e) => { if (e.seq >= last && e.type !== 'approval_requested') stop.abort(); } });
      }
      await rt.runSession(sessionId, closing);
    } else {
      for (let i = 0; i <= resumes.length; i++) await rt.runSession(sessionId, { ...run, approval: decisions(i) });
    }
    const a = recordedLedger.lines;
    const b = readFileSync(join(scratch, LEDGER_FILE), 'utf8').split('\n').filter(Boolean);
    let firstDifference: ReplayReport['firstDifference'] = null;
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (a[i] !== b[i]) {
        firstDifference = { line: i + 1, original: a[i] ?? null, replayed: b[i] ?? null };
        break;
      }
    }
    return { session: sessionId, identical: firstDifference === null, lines: { original: a.length, replayed: b.length }, firstDifference, compositionDiffers: null };
  } finally {
    if (!opts.keep) rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The decisions on destructive steps as the ledger recorded them, for the run of the original
 * between the events `from` and `until` (a decision taken in another run reads as none: waiting).
 * A denial's reason is read back from its error, which the step wrote as `denied by BY[: REASON]`
 * or `approval expired: REASON`; a session run without an approver is given none again.
 */
function recordedDecisions(events: readonly LedgerEvent[], from: number, until: number): ApprovalDecider | undefined {
  // denied without a `by`: the run had no approver (pico run), and replay has none either
  if (events.some((e) => e.type === 'approval_denied' && e.by === undefined)) return undefined;
  const decisions = events.filter((e) => e.type === 'approval_granted' || e.type === 'approval_denied');
  return (step) => {
    const e = decisions.find((d) => (d as { step: string }).step === step);
    if (!e || e.seq <= from || e.seq >= until) return null;
    if (e.type === 'approval_granted') return { decision: 'granted', by: e.by, at: e.decided_at ?? e.t, reason: null };
    const d = e as Extract<LedgerEvent, { type: 'approval_denied' }>;
    const said = d.error.replace(/^tool [^:]+: /, '');
    const reason = d.by === 'timeout' ? said.replace(/^approval expired: /, '') : said.startsWith(`denied by ${d.by}: `) ? said.slice(`denied by ${d.by}: `.length) : null;
    return { decision: 'denied', by: d.by!, at: d.decided_at ?? d.t, reason };
  };
}

/** A tool runner that answers each step's tool calls, in order, with what the ledger recorded. */
function recordedTools(blobs: { read: OutputReader }, events: readonly LedgerEvent[]): ToolRunner {
  const queues = new Map<string, LedgerEvent[]>();
  for (const e of events) {
    const isTool = e.type === 'tool_output' || ((e.type === 'tool_failed' || e.type === 'tool_timeout' || e.type === 'tool_empty') && e.provider === null);
    if (!isTool) continue;
    const step = (e as { step: string }).step;
    queues.set(step, [...(queues.get(step) ?? []), e]);
  }
  return async (tool, _args, step) => {
    const e = queues.get(step)?.shift();
    if (!e) throw new Error(`replay: the recorded session has no more output for tool ${tool.name} at step ${step}; the replay took a different path`);
    if (e.type === 'tool_output') return { output: blobs.read(e), exitCode: e.exit_code, durationMs: e.duration_ms, truncated: e.truncated };
    const type = e.type as 'tool_failed' | 'tool_timeout' | 'tool_empty';
    // the failure as the tool runner raised it: the step adds the budget note again (once), and
    // keeps the tool's name, which the runner's message already starts with
    const cause = (e as { cause?: { id: string; plain: string } }).cause;
    throw new ProviderError(type, withoutClippedNote((e as { error: string }).error), cause ? { cause } : undefined);
  };
}

