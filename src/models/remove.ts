/**
 * `pico models rm ID`: take a model provider out of the root — its manifest,
 * and its weights when they are in models/ and no other manifest uses them.
 *
 * It refuses while the daemon runs a job that may call the model (a live
 * daemon lock, and the running session's composition lists the provider),
 * since that job's next step could then find neither; between jobs it goes
 * ahead, and says that the daemon's worker forgets the provider at its next
 * start (`systemctl reload picoharness` makes that now). A file outside
 * models/ is the operator's own and is never deleted. The manifest goes first:
 * a crash in between leaves an unused file, which `pico models` lists. It
 * asks nothing; it reports what it removed and what it kept, and why.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { COMPOSITION_FILE } from '../ledger/composition.js';
import { daemonPaths } from '../daemon/paths.js';
import { stillRunning } from '../daemon/proc.js';
import { insideModels } from './folder.js';
import { readModelManifests, realOrResolved } from './manifests.js';

export class UnknownModel extends Error {
  override name = 'UnknownModel';
}
export class ModelInUse extends Error {
  override name = 'ModelInUse';
}

export interface Removed {
  id: string;
  manifest: string;
  /** the weights file removed, or null when it was kept */
  file: string | null;
  kept: string | null;
  /** a daemon serves this root (its worker may still hold the old manifests) */
  daemon: boolean;
}

/** The live daemon's running session, if a daemon holds the root's lock: null when none runs. */
function liveDaemon(root: string): { alive: boolean; session: string | null } {
  const p = daemonPaths(root);
  let pid = 0;
  let identity = '';
  try {
    [pid, identity] = ((l) => [Number(l[0]), l[1] ?? ''] as const)(readFileSync(p.lock, 'utf8').split('\n'));
  } catch {
    return { alive: false, session: null };
  }
  if (!(Number.isInteger(pid) && pid > 0 && stillRunning(pid, identity || undefined))) return { alive: false, session: null };
  try {
    const status = JSON.parse(readFileSync(p.status, 'utf8')) as { running?: { session?: string } | null };
    return { alive: true, session: status.running?.session ?? null };
  } catch {
    return { alive: true, session: null };
  }
}

/** Remove a model provider; throws UnknownModel (no such model) or ModelInUse (a running job may call it). */
export function removeModel(root: string, id: string): Removed {
  const { models, other } = readModelManifests(root);
  const m = models.find((x) => x.id === id);
  if (!m) {
    const kind = other.get(id);
    throw new UnknownModel(kind
      ? `"${id}" is a ${kind} provider, not a model; remove manifests/providers/${id}.json yourself if you mean to`
      : `no model provider "${id}" in ${path.join(root, 'manifests', 'providers')}; \`pico models\` lists them`);
  }
  const daemon = liveDaemon(root);
  if (daemon.session !== null) {
    let providers: Record<string, unknown> = {};
    try {
      providers = (JSON.parse(readFileSync(path.join(root, 'sessions', daemon.session, COMPOSITION_FILE), 'utf8')) as { providers?: Record<string, unknown> }).providers ?? {};
    } catch {
      providers = { [id]: true }; // cannot tell: assume it may
    }
    if (id in providers) throw new ModelInUse(`the daemon is running job ${daemon.session}, which may call "${id}"; run this again when it ends (pico status), or stop the daemon first`);
  }
  unlinkSync(m.manifest);
  const real = realOrResolved(m.path);
  const users = models.filter((x) => x.id !== id && realOrResolved(x.path) === real).map((x) => x.id);
  let file: string | null = null;
  let kept: string | null = null;
  if (users.length > 0) kept = `${m.path} is still used by ${users.join(', ')}`;
  else if (!insideModels(root, m.path)) kept = `${m.path} is outside ${path.join(root, 'models')}: not removed (it is yours)`;
  else {
    try {
      unlinkSync(m.path);
      file = m.path;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      kept = `${m.path} was already gone`;
    }
  }
  return { id, manifest: m.manifest, file, kept, daemon: daemon.alive };
}
