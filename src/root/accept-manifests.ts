/**
 * Which manifests are in force: the set on disk, less the changes that were refused.
 *
 * The daemon (daemon/manifest-drop.ts) asks this after something moved in a
 * manifest folder. The set in force is the last good snapshot
 * (`sessions/.daemon/manifests.last-good.json`, snapshot.ts), the one a
 * session worker falls back to when the folders do not load. Every file
 * whose text differs between that snapshot and the folders is a change: a
 * file added, edited or removed. The folders are checked as a set by the
 * worker's own rules (manifest-set.ts); while problems remain, the changed
 * files they name are put back as they were in force (an edit is undone, a new
 * file left out, a removal kept back) and refused with those problems, and
 * the rest is checked again. A problem that names no changed file (removing a
 * capability a tool still needs names the tool) refuses every change left,
 * with it. What passes becomes the new snapshot, so a good file dropped beside
 * a broken one is still taken, and the broken one never takes the last good
 * set out of force. Files are never moved or rewritten: a refused file stays
 * where its writer put it, and its reason is written to
 * `manifests/rejected/<folder>/<name>.reason.json` (the loader never reads
 * that folder), removed again once the file is fixed or removed. This module
 * decides and records; it does not tell the worker (the daemon does).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomicSync } from '../base/durable-file.js';
import type { ManifestIssue } from '../registry/boundary.js';
import { checkManifestSet } from './manifest-set.js';
import { captureManifests, MANIFEST_DIRS, readSnapshot, snapshotSource, storeSnapshot, type ManifestSnapshot } from './snapshot.js';

/** Where refusals are kept, relative to the root. */
export const REJECTED_MANIFESTS = 'manifests/rejected';

export interface Refusal {
  /** the refused file, relative to the root (manifests/tools/x.json) */
  file: string;
  /** what is wrong, by the rules of `pico manifests check` */
  problems: Omit<ManifestIssue, 'file'>[];
  /** what stays in force meanwhile */
  in_force: 'the previous version' | 'nothing: the file is new' | 'the file: its removal is held back';
}

export interface Acceptance {
  /** files that took effect, by what happened to them */
  added: string[];
  changed: string[];
  removed: string[];
  /** every change refused now (the set in force does not hold them) */
  refused: Refusal[];
  /** the set in force did not change */
  same: boolean;
  /** problems the set in force has by itself (a program a tool names was deleted): nothing a change can fix */
  broken: ManifestIssue[];
  /** no set was in force yet (a root's first start): the folders were taken whole, or not at all */
  first: boolean;
}

/** The state of one manifest file in a snapshot: its text, why it could not be read, or absent. */
function stateOf(snap: ManifestSnapshot, file: string): string | undefined {
  const [, dir, name] = file.split('/');
  if (!(snap.lists[dir!] ?? []).includes(name!)) return undefined;
  const text = snap.files[file];
  return text !== undefined ? `text:${text}` : `unreadable:${snap.unreadable?.[file]?.message ?? ''}`;
}

/** Every file either snapshot lists. */
function filesOf(...snaps: ManifestSnapshot[]): string[] {
  const all = new Set<string>();
  for (const s of snaps) for (const [dir, names] of Object.entries(s.lists)) for (const n of names ?? []) all.add(`manifests/${dir}/${n}`);
  return [...all].sort();
}

/** Make `file` in `into` what it is in `from` (present with its text or its reason, or absent). */
function copyFile(into: ManifestSnapshot, from: ManifestSnapshot, file: string): void {
  const [, dir, name] = file.split('/');
  const list = (into.lists[dir!] ?? []).filter((n) => n !== name);
  delete into.files[file];
  if (into.unreadable) delete into.unreadable[file];
  if (stateOf(from, file) !== undefined) {
    list.push(name!);
    if (from.files[file] !== undefined) into.files[file] = from.files[file]!;
    else (into.unreadable ??= {})[file] = from.unreadable![file]!;
  }
  into.lists[dir!] = list.length > 0 || into.lists[dir!] !== null ? list.sort() : null;
}

/**
 * Decide what of the folders of `root` takes effect against the set in force kept in `lastGood`,
 * store the new set there, and keep the reason files in step. Returns what changed and what was refused.
 */
export async function acceptManifests(root: string, lastGood: string): Promise<Acceptance> {
  const live = captureManifests(root);
  const kept = readSnapshot(lastGood);
  if (kept === null) {
    // nothing was in force: the worker opens the folders as they are (and a daemon does not start on
    // a set that fails), so there is nothing to refuse a change against; a clean set is kept
    const { issues } = await checkManifestSet(root, snapshotSource(live));
    if (issues.length === 0) {
      mkdirSync(dirname(lastGood), { recursive: true });
      storeSnapshot(lastGood, live);
    }
    return { added: [], changed: [], removed: [], refused: [], same: true, broken: issues, first: true };
  }
  const before = kept;
  const changes = new Set(filesOf(before, live).filter((f) => stateOf(before, f) !== stateOf(live, f)));
  // an entry the listing itself refused (a link out of the root) is a change of its own
  const listed = (snap: ManifestSnapshot): Set<string> => new Set(Object.values(snap.listIssues).flat().map((i) => i.file));
  const wasListed = listed(before);
  for (const f of listed(live)) if (!wasListed.has(f)) changes.add(f);
  const candidate: ManifestSnapshot = structuredClone(live);
  const refused = new Map<string, Refusal>();
  const refuse = (file: string, problems: ManifestIssue[]): void => {
    const had = refused.get(file);
    const mine = problems.map(({ path, message, fix }) => ({ path, message, fix }));
    const inForce = stateOf(before, file) === undefined ? 'nothing: the file is new' : stateOf(live, file) === undefined ? 'the file: its removal is held back' : 'the previous version';
    refused.set(file, { file, problems: [...(had?.problems ?? []), ...mine], in_force: inForce });
    copyFile(candidate, before, file);
    const dir = file.split('/')[1]!;
    candidate.listIssues[dir] = [...(candidate.listIssues[dir] ?? []).filter((i) => i.file !== file), ...(before.listIssues[dir] ?? []).filter((i) => i.file === file)];
    changes.delete(file);
  };
  let broken: ManifestIssue[] = [];
  for (;;) {
    const { issues } = await checkManifestSet(root, snapshotSource(candidate));
    if (issues.length === 0) break;
    const named = [...new Set(issues.map((i) => i.file))].filter((f) => changes.has(f));
    if (named.length > 0) {
      for (const f of named) refuse(f, issues.filter((i) => i.file === f));
      continue;
    }
    if (changes.size === 0) {
      broken = issues; // the set in force fails by itself: no change of a manifest made it so
      break;
    }
    // problems in files that did not change, caused by what did: every change left is held back with them
    const caused = issues.map((i) => ({ ...i, message: `${i.file}${i.path ? ` at ${i.path}` : ''}: ${i.message}` }));
    for (const f of [...changes]) refuse(f, caused);
  }
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const f of filesOf(before, candidate)) {
    const was = stateOf(before, f);
    const now = stateOf(candidate, f);
    if (was === now) continue;
    (was === undefined ? added : now === undefined ? removed : changed).push(f);
  }
  const same = added.length + changed.length + removed.length === 0;
  if (!same) storeSnapshot(lastGood, candidate);
  keepReasons(root, [...refused.values()]);
  return { added, changed, removed, refused: [...refused.values()], same, broken, first: false };
}

/** Write a reason file for each refusal and remove the ones no refusal stands behind any more. */
function keepReasons(root: string, refusals: Refusal[], now = new Date()): void {
  const base = join(root, REJECTED_MANIFESTS);
  const want = new Map(refusals.map((r) => [`${r.file.slice('manifests/'.length)}.reason.json`, r]));
  for (const [rel, r] of want) {
    const path = join(base, rel);
    const body = { reason: 'manifest-refused@1', ...r };
    let had: { at?: string } | null = null;
    try {
      had = JSON.parse(readFileSync(path, 'utf8')) as { at?: string };
    } catch { /* none yet, or damaged: written anew */ }
    // the same refusal seen again is not news: its file is not rewritten, and keeps the time it was first made
    if (had && JSON.stringify({ ...had, at: undefined }) === JSON.stringify({ ...body, at: undefined })) continue;
    mkdirSync(join(base, rel.split('/')[0]!), { recursive: true });
    writeFileAtomicSync(path, JSON.stringify({ ...body, at: now.toISOString() }, null, 2) + '\n');
  }
  for (const dir of MANIFEST_DIRS) {
    let names: string[];
    try {
      names = readdirSync(join(base, dir));
    } catch {
      continue;
    }
    for (const n of names) if (n.endsWith('.reason.json') && !want.has(`${dir}/${n}`)) rmSync(join(base, dir, n), { force: true });
    try {
      rmdirSync(join(base, dir)); // only when empty
    } catch { /* still holds reasons */ }
  }
  try {
    rmdirSync(base);
  } catch { /* still holds reasons, or was never made */ }
}

/** The refusals on record under `root` (their reason files), for `pico status` and a starting worker. */
export function refusalsOnRecord(root: string): string[] {
  const out: string[] = [];
  for (const dir of MANIFEST_DIRS) {
    try {
      for (const n of readdirSync(join(root, REJECTED_MANIFESTS, dir))) if (n.endsWith('.reason.json')) out.push(`manifests/${dir}/${n.slice(0, -'.reason.json'.length)}`);
    } catch { /* none in this folder */ }
  }
  return out;
}
