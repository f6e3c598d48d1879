/**
 * Verifying a session folder against itself: does what is on disk still
 * agree with the ledger, which is the truth?
 *
 * A ledger can be damaged in ways its writer never sees: lines edited or
 * cut out by hand, a disk that returned garbage, a copy that lost its tail
 * at a line boundary. Only the other files notice the last one: result.json
 * cites seqs, an answer and an end time, and blobs are named by their hash.
 * So a session is whole when its ledger scans clean (scan.ts: UTF-8 JSON
 * events, seq dense, one session), starts with its composition, has nothing
 * after its answer, its result.json says what its answer event says (every
 * cited fact at its seq), the composition document hashes to what event 0
 * names, and every blob hashes to its name. A session still waiting for the
 * daemon (no answer yet) is not a problem; it is a note. This module only
 * reads; `pico check` prints what it finds and the daemon closes damaged
 * sessions itself when it next runs them.
 *
 * A session folder can be copied in from anywhere, so every file is read
 * through safe-open (src/base/): a FIFO, a symlink (to /dev/zero, say), a
 * hard link or a foreign file in its place is a problem named with its file,
 * never opened as it is — a check (and the replay that runs one first) cannot
 * hang on it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readPlanted, rootRules, UnsafeFileError, type RootRules } from '../base/safe-open.js';
import { compositionHash, COMPOSITION_FILE, type Composition } from '../ledger/composition.js';
import type { LedgerEvent } from '../ledger/events.js';
import { LEDGER_FILE } from '../ledger/ledger.js';
import { scanLedger } from '../ledger/scan.js';

export interface SessionProblem {
  file: string;
  problem: string;
  fix: string;
}

export interface SessionCheck {
  session: string;
  dir: string;
  /** events in the intact part of the ledger */
  events: number;
  state: 'answered' | 'closed' | 'unfinished' | 'empty';
  problems: SessionProblem[];
  notes: string[];
}

const BLOB_REF = /^sha256:[0-9a-f]{64}$/;
const RESTORE = 'restore the session folder from a backup; if there is none, move it out of sessions/ and submit the job again (`pico show` prints what is left)';

export interface CheckOptions {
  /**
   * false: the ledger and result.json only, events read loosely (scan.ts) — skip job.json, the
   * composition document and blobs (memory reads ledgers other implementations wrote)
   */
  files?: boolean;
  /** the rules the session's files are read under (default: those of the sessions folder it lies in) */
  rules?: RootRules;
}

/** Caps of the files a check reads, in bytes. */
const MAX_LEDGER_BYTES = 1024 ** 3;
const MAX_DOCUMENT_BYTES = 64 * 1024 ** 2;
const MAX_BLOB_BYTES = 256 * 1024 ** 2;

type Bad = (file: string, problem: string, fix?: string) => void;
/** A session file's bytes, null when it does not exist, 'refused' when it is not a plain file of the root (a problem, said). */
type Read = (name: string, what: string, maxBytes: number, linked?: boolean) => Buffer | null | 'refused';

function safeReader(dir: string, rules: RootRules, bad: Bad): Read {
  return (name, what, maxBytes, linked = false) => {
    try {
      return readPlanted(rules, join(dir, name), { maxBytes, what, linked })?.bytes ?? null;
    } catch (err) {
      if (!(err instanceof UnsafeFileError)) throw err;
      bad(name, `${name}: ${err.detail}`, err.fix);
      return 'refused';
    }
  };
}

/** Check one session folder (sessions/<id>); a file that cannot even be read is a problem too. */
export function checkSession(dir: string, session: string, o: CheckOptions = {}): SessionCheck {
  const out: SessionCheck = { session, dir, events: 0, state: 'empty', problems: [], notes: [] };
  try {
    const abs = resolve(dir);
    // the rules of the sessions folder the session lies in: it may be a mount of its own (a bigger disk)
    inspect(dir, session, o.files ?? true, out, safeReader(abs, o.rules ?? rootRules(resolve(abs, '..')), (file, problem, fix = RESTORE) => void out.problems.push({ file: join(dir, file), problem, fix })));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    out.problems.push({ file: e.path ?? dir, problem: `cannot be read (${e.code ?? e.message})`, fix: 'a session folder holds regular files made by picoharness; restore it from a backup or move it out of sessions/' });
  }
  return out;
}

function inspect(dir: string, session: string, files: boolean, out: SessionCheck, read: Read): void {
  const bad = (file: string, problem: string, fix = RESTORE): void => void out.problems.push({ file: join(dir, file), problem, fix });
  if (files && !existsSync(join(dir, 'job.json'))) bad('job.json', 'the session has no job.json', 'a session folder is made by a claim or `pico run`; remove a folder made by hand');
  const events = readEvents(read, session, out, bad, files);
  out.events = events.length;
  const result = readResult(read, bad);
  const answerAt = events.findIndex((e) => e.type === 'answer_sent');
  const answer = answerAt >= 0 ? (events[answerAt] as Extract<LedgerEvent, { type: 'answer_sent' }>) : null;
  if (events.length > 0 && events[0]!.type !== 'composition') bad(LEDGER_FILE, `event 0 is ${events[0]!.type}, not composition: the start of the ledger is missing`);
  if (answer && answerAt < events.length - 1) bad(LEDGER_FILE, `${events.length - 1 - answerAt} event(s) after the answer (seq ${answer.seq}): nothing is appended to a finished session`);
  if (result === 'unreadable') {
    // already reported
  } else if (result && 'closed_by' in result) {
    out.state = 'closed';
    if (result.session_id !== session) bad('result.json', `result.json names session ${String(result.session_id)}`);
    if (answer && answer.outcome !== result.outcome) bad('result.json', `result.json says the session was closed (${String(result.outcome)}, by ${String(result.closed_by)}), but the ledger's answer (seq ${answer.seq}) says ${answer.outcome}`, 'delete result.json: the daemon rewrites it from the ledger on its next start');
  } else if (result) {
    out.state = 'answered';
    compareResult(result, answer, events, session, bad);
  } else {
    out.state = events.length === 0 ? 'empty' : 'unfinished';
    out.notes.push(answer ? 'answered, but result.json is missing: the daemon rewrites it from the ledger on its next start' : 'not finished: the daemon resumes it when it runs');
  }
  if (files) {
    checkComposition(read, events, bad);
    checkBlobs(dir, read, events, bad);
  }
  for (const n of safeList(dir)) if (/^events\.jsonl\.(torn|damaged)-/.test(n)) out.notes.push(`${n}: bytes set aside from the ledger (${n.includes('damaged') ? 'damage before its end' : 'a torn last line'}); keep it for inspection or delete it`);
}

/** Check every session under `sessionsDir` (folders named like session ids), in name order. */
export function checkSessions(sessionsDir: string, isSession: (name: string) => boolean, o: CheckOptions = {}): SessionCheck[] {
  return safeList(sessionsDir).filter(isSession).sort().map((id) => checkSession(join(sessionsDir, id), id, o));
}

function readEvents(read: Read, session: string, out: SessionCheck, bad: Bad, strict: boolean): LedgerEvent[] {
  const raw = read(LEDGER_FILE, 'ledger', MAX_LEDGER_BYTES);
  if (raw === null || raw === 'refused') return [];
  const scan = scanLedger(raw, session, { strict });
  if (scan.damage) bad(LEDGER_FILE, `line ${scan.damage.line}: ${scan.damage.problem}; only the first ${scan.events.length} events are intact`, `${RESTORE}; an unfinished session is closed by the daemon when it next runs it (the ${scan.events.length} intact events are kept, the rest set aside)`);
  else if (scan.torn) out.notes.push(`the ledger ends in a torn line (${raw.length - scan.intactBytes} bytes); it is set aside when the session is next opened`);
  return scan.events;
}

type ResultDoc = Record<string, unknown> & { session_id?: unknown };

function readResult(read: Read, bad: Bad): ResultDoc | null | 'unreadable' {
  const raw = read('result.json', 'result', MAX_DOCUMENT_BYTES);
  if (raw === null) return null;
  if (raw === 'refused') return 'unreadable';
  const text = raw.toString('utf8');
  if (text.length === 0) return null; // what a power cut leaves: re-closed from the ledger
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as ResultDoc;
  } catch {
    // below
  }
  bad('result.json', 'result.json is not a JSON object (cut short or overwritten)', 'delete result.json: the daemon rewrites it from the ledger on its next start');
  return 'unreadable';
}

/** result.json must say what the ledger's answer says, and cite only facts the ledger holds. */
function compareResult(r: ResultDoc, answer: Extract<LedgerEvent, { type: 'answer_sent' }> | null, events: readonly LedgerEvent[], session: string, bad: (f: string, p: string, fix?: string) => void): void {
  if (r.session_id !== session) bad('result.json', `result.json names session ${String(r.session_id)}`);
  if (!answer) {
    bad(LEDGER_FILE, `result.json reports outcome ${String(r.outcome)} ending at ${String(r.ended_at)}, but the ledger holds no answer: it lost its end (it has ${events.length} events)`);
  } else {
    if (r.outcome !== answer.outcome) bad('result.json', `result.json says ${String(r.outcome)}, the ledger's answer (seq ${answer.seq}) says ${answer.outcome}`);
    if (r.answer !== answer.text) bad('result.json', `result.json's answer text differs from the ledger's answer (seq ${answer.seq})`);
    if (r.ended_at !== answer.t) bad('result.json', `result.json ends at ${String(r.ended_at)}, the ledger's answer at ${answer.t}`);
  }
  const facts = Array.isArray(r.facts) ? (r.facts as { provenance?: unknown; fact?: unknown; step?: unknown }[]) : [];
  for (const f of facts) {
    const m = /#(\d+)$/.exec(String(f.provenance));
    const e = m ? events[Number(m[1])] : undefined;
    if (!m) bad('result.json', `a fact's provenance ${JSON.stringify(f.provenance)} names no seq`);
    else if (!e) bad(LEDGER_FILE, `result.json cites seq ${m[1]} (step ${String(f.step)}), which the ledger no longer holds`);
    else if (e.type !== 'fact_added' || e.step !== f.step || JSON.stringify(e.fact) !== JSON.stringify(f.fact)) bad(LEDGER_FILE, `seq ${m[1]} is not the fact result.json cites (step ${String(f.step)})`);
  }
  const held = events.filter((e) => e.type === 'fact_added').length;
  if (answer && held !== facts.length) bad('result.json', `result.json lists ${facts.length} facts, the ledger holds ${held}`);
}

function checkComposition(read: Read, events: readonly LedgerEvent[], bad: Bad): void {
  const first = events[0];
  if (first?.type !== 'composition') return;
  // shared by the sessions of one composition through hard links; its hash is checked below
  const raw = read(COMPOSITION_FILE, 'composition document', MAX_DOCUMENT_BYTES, true);
  if (raw === 'refused') return;
  if (raw === null) return bad(COMPOSITION_FILE, `the composition document is missing (event 0 names ${first.hash})`, 'copy it back from sessions/.compositions/ if it is there; replay needs it');
  try {
    const got = compositionHash(JSON.parse(raw.toString('utf8')) as Composition);
    if (got !== first.hash) bad(COMPOSITION_FILE, `the composition document hashes to ${got}, event 0 names ${first.hash}`);
  } catch {
    bad(COMPOSITION_FILE, 'the composition document is not JSON');
  }
}

function checkBlobs(dir: string, read: Read, events: readonly LedgerEvent[], bad: Bad): void {
  const blobs = join(dir, 'blobs');
  const cited = new Set<string>();
  for (const e of events) {
    for (const [k, v] of Object.entries(e)) if (/blob$/.test(k) && typeof v === 'string' && BLOB_REF.test(v)) cited.add(v.slice(7));
  }
  const present = new Set(safeList(blobs).filter((n) => /^[0-9a-f]{64}$/.test(n)));
  for (const hex of [...cited].sort()) if (!present.has(hex)) bad(`blobs/${hex}`, 'a blob the ledger cites is missing');
  for (const hex of [...present].sort()) {
    const raw = read(`blobs/${hex}`, 'blob', MAX_BLOB_BYTES);
    if (raw === null || raw === 'refused') continue;
    const got = createHash('sha256').update(raw).digest('hex');
    if (got !== hex) bad(`blobs/${hex}`, `the blob's content hashes to ${got.slice(0, 16)}…, not to its name`);
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
