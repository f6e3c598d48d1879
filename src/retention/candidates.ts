/**
 * What retention may take: finished sessions and rejected inbox entries that
 * ended before a cutoff.
 *
 * A session is finished when its result.json is whole (the daemon's own rule,
 * daemon/recovery.ts); its end is the result's `ended_at`. A session with no
 * result — queued, running, or waiting for a person's approval — is never a
 * candidate, and neither is anything that is not named by a session id (the
 * inbox, rejected/, archive/, .daemon/, .compositions/, trash). A result that
 * does not parse is not guessed at: the session is kept and reported, since
 * the daemon re-closes such a session from its ledger. Rejected entries
 * (`rejected/<name>` beside `<name>.reason.json`) age by their reason's `at`.
 * Nothing here follows a symlink (src/base/safe-open.ts walks the folders and
 * reads result.json and reason files): a link planted in sessions/ or
 * rejected/, a rejected/ folder that is a link, or an entry on another
 * filesystem is never a candidate; it is reported in `kept` and left where
 * it is, so gc never moves, archives or deletes anything outside sessions/.
 * This module only looks; removing and archiving are `remove.ts` and `archive.ts`.
 */
import { dirname, join } from 'node:path';
import { listFolder, parseJsonQuiet, readPlantedText, rootRules, UnsafeFileError, walkable, type FolderEntry, type RootRules } from '../base/safe-open.js';
import { isSessionId } from '../ledger/session-id.js';
import { freedBy } from './disk-use.js';

export interface Candidate {
  kind: 'session' | 'rejected';
  /** the session id, or the rejected entry's stored name */
  name: string;
  /** the paths that go together (a session folder; a rejected entry and its reason file) */
  paths: string[];
  /** when it ended (ISO) */
  ended_at: string;
  /** bytes its removal frees */
  bytes: number;
}

export interface Kept {
  name: string;
  why: string;
}

export interface Selection {
  candidates: Candidate[];
  /** finished-looking sessions that were kept because something about them is unclear */
  kept: Kept[];
}

/** result.json and a reason file are small documents; a cap far above them. */
const DOC_MAX_BYTES = 16 * 1024 * 1024;

/** Why a planted entry is left: a symlink, or a mount of another filesystem. */
function plantedWhy(e: FolderEntry): string {
  return e.stat.isSymbolicLink()
    ? `${e.path} is a symlink (never followed): left in place; remove the link by hand if it is not yours`
    : `${e.path} is on another filesystem (a mount): left in place`;
}

/** The entries of a folder under the root, or [] when it is missing; a refused folder is reported in `kept`. */
function entries(rules: RootRules, dir: string, name: string, kept: Kept[]): FolderEntry[] {
  try {
    return listFolder(rules, dir) ?? [];
  } catch (err) {
    if (!(err instanceof UnsafeFileError)) throw err;
    kept.push({ name, why: `${err.message}: left in place, nothing in it is removed` });
    return [];
  }
}

/** The end of a finished session (its result's ended_at), null when unfinished, or why it cannot be read. */
function sessionEnd(rules: RootRules, dir: string): { ended_at: string } | { unfinished: true } | { why: string } {
  let text: string;
  try {
    const f = readPlantedText(rules, join(dir, 'result.json'), { maxBytes: DOC_MAX_BYTES, what: 'result file' });
    if (f === null) return { unfinished: true };
    text = f.text;
  } catch (e) {
    if (e instanceof UnsafeFileError) return { why: e.message };
    return { why: `result.json cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  try {
    const json = parseJsonQuiet(text);
    if ('problem' in json) throw new Error(json.problem);
    const doc = json.value as { ended_at?: unknown };
    if (typeof doc?.ended_at === 'string' && !Number.isNaN(Date.parse(doc.ended_at))) return { ended_at: new Date(doc.ended_at).toISOString() };
    return { why: 'result.json has no ended_at time' };
  } catch {
    return { why: 'result.json is not whole JSON (the daemon re-closes it from the ledger on its next start; `pico check` says more)' };
  }
}

/** Finished sessions and rejected entries under `sessionsDir` that ended before `cutoffMs`, oldest first. */
export function selectOlderThan(sessionsDir: string, cutoffMs: number): Selection {
  const candidates: Candidate[] = [];
  const kept: Kept[] = [];
  const rules = rootRules(dirname(sessionsDir));
  for (const e of entries(rules, sessionsDir, 'sessions', kept)) {
    if (!isSessionId(e.name)) continue;
    if (!walkable(rules, e.stat)) {
      kept.push({ name: e.name, why: plantedWhy(e) });
      continue;
    }
    if (!e.stat.isDirectory()) continue;
    const end = sessionEnd(rules, e.path);
    if ('unfinished' in end) continue;
    if ('why' in end) {
      kept.push({ name: e.name, why: end.why });
      continue;
    }
    if (Date.parse(end.ended_at) >= cutoffMs) continue;
    candidates.push({ kind: 'session', name: e.name, paths: [e.path], ended_at: end.ended_at, bytes: freedBy(e.path) });
  }
  const rejected = entries(rules, join(sessionsDir, 'rejected'), 'rejected', kept);
  const byName = new Map(rejected.map((e) => [e.name, e]));
  for (const reason of rejected.filter((e) => e.name.endsWith('.reason.json') && !e.name.startsWith('.'))) {
    const name = reason.name.slice(0, -'.reason.json'.length);
    const entry = byName.get(name);
    const planted = [reason, entry].find((e) => e !== undefined && !walkable(rules, e.stat));
    if (planted) {
      kept.push({ name: `rejected/${planted.name}`, why: plantedWhy(planted) });
      continue;
    }
    let at: number;
    try {
      const f = readPlantedText(rules, reason.path, { maxBytes: DOC_MAX_BYTES, what: 'reason file' });
      const json = f === null ? null : parseJsonQuiet(f.text);
      const doc = json && 'value' in json ? (json.value as { at?: unknown } | null) : null;
      at = typeof doc?.at === 'string' ? Date.parse(doc.at) : NaN;
      if (Number.isNaN(at)) at = reason.stat.mtimeMs;
    } catch {
      at = reason.stat.mtimeMs; // a reason file is only a note; its age is its mtime then
    }
    if (at >= cutoffMs) continue;
    const paths = [entry?.path, reason.path].filter((p): p is string => p !== undefined);
    candidates.push({ kind: 'rejected', name, paths, ended_at: new Date(at).toISOString(), bytes: paths.reduce((n, p) => n + freedBy(p), 0) });
  }
  candidates.sort((a, b) => (a.ended_at < b.ended_at ? -1 : a.ended_at > b.ended_at ? 1 : a.name < b.name ? -1 : 1));
  return { candidates, kept };
}
