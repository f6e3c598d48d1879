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
 * This module only looks; removing and archiving are `remove.ts` and `archive.ts`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
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

const list = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
};

/** The end of a finished session (its result's ended_at), null when unfinished, or why it cannot be read. */
function sessionEnd(dir: string): { ended_at: string } | { unfinished: true } | { why: string } {
  let text: string;
  try {
    text = readFileSync(join(dir, 'result.json'), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { unfinished: true };
    return { why: `result.json cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  try {
    const doc = JSON.parse(text) as { ended_at?: unknown };
    if (typeof doc.ended_at === 'string' && !Number.isNaN(Date.parse(doc.ended_at))) return { ended_at: new Date(doc.ended_at).toISOString() };
    return { why: 'result.json has no ended_at time' };
  } catch {
    return { why: 'result.json is not whole JSON (the daemon re-closes it from the ledger on its next start; `pico check` says more)' };
  }
}

/** Finished sessions and rejected entries under `sessionsDir` that ended before `cutoffMs`, oldest first. */
export function selectOlderThan(sessionsDir: string, cutoffMs: number): Selection {
  const candidates: Candidate[] = [];
  const kept: Kept[] = [];
  for (const name of list(sessionsDir)) {
    if (!isSessionId(name)) continue;
    const dir = join(sessionsDir, name);
    const end = sessionEnd(dir);
    if ('unfinished' in end) continue;
    if ('why' in end) {
      kept.push({ name, why: end.why });
      continue;
    }
    if (Date.parse(end.ended_at) >= cutoffMs) continue;
    candidates.push({ kind: 'session', name, paths: [dir], ended_at: end.ended_at, bytes: freedBy(dir) });
  }
  const rejected = join(sessionsDir, 'rejected');
  for (const reasonName of list(rejected).filter((n) => n.endsWith('.reason.json') && !n.startsWith('.'))) {
    const name = reasonName.slice(0, -'.reason.json'.length);
    const reasonPath = join(rejected, reasonName);
    let at: number;
    try {
      const doc = JSON.parse(readFileSync(reasonPath, 'utf8')) as { at?: unknown };
      at = typeof doc.at === 'string' ? Date.parse(doc.at) : NaN;
      if (Number.isNaN(at)) at = statSync(reasonPath).mtimeMs;
    } catch {
      at = statSync(reasonPath).mtimeMs; // a reason file is only a note; its age is its mtime then
    }
    if (at >= cutoffMs) continue;
    const paths = [join(rejected, name), reasonPath].filter((p) => {
      try {
        statSync(p);
        return true;
      } catch {
        return false;
      }
    });
    candidates.push({ kind: 'rejected', name, paths, ended_at: new Date(at).toISOString(), bytes: paths.reduce((n, p) => n + freedBy(p), 0) });
  }
  candidates.sort((a, b) => (a.ended_at < b.ended_at ? -1 : a.ended_at > b.ended_at ? 1 : a.name < b.name ? -1 : 1));
  return { candidates, kept };
}
