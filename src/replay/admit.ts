/**
 * What a recorded composition may run when a session is replayed under it.
 *
 * Why: replay runs the providers again (recorded.ts loads a session's own
 * manifests when the root's have changed). But a session folder is a file the
 * daemon does not own once it is copied in — from a backup, another box, an
 * attacker — and its composition document, digests and all, says whatever its
 * writer made it say; `pico check` only finds it whole. A shell provider in it
 * names a program to run, an http provider an endpoint to call, a gguf
 * provider a weights file to load. So those run only from what the root
 * itself holds: a recorded provider of those kinds is admitted when the root's
 * own manifest of that id is the same document, or — for a model removed
 * since (`pico models rm`) — when its weights are a file in the root's own
 * models/ folder. A code provider names a function of this package by its
 * entry (and the code's digest is compared anyway), so it is admitted as it
 * stands. Tools are never run on replay (their outputs come from the ledger).
 * This module only judges; replay.ts refuses, naming each provider and why.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { canonicalJson } from '../ledger/canonical.js';
import type { Composition } from '../ledger/composition.js';

/** Why each recorded provider that would run something the root does not hold is refused, as `providers.ID: why`. */
export function unadmittedProviders(recorded: Composition, current: Composition, root: string): string[] {
  const out: string[] = [];
  const own = current.providers ?? {};
  for (const [id, doc] of Object.entries(recorded.providers ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (Object.hasOwn(own, id) && canonicalJson(own[id]) === canonicalJson(doc)) continue;
    const why = refusal(doc, root);
    if (why) out.push(`providers.${id}: ${why}; replay runs providers only as this root's own manifests (manifests/providers/) define them`);
  }
  return out;
}

/** Why a provider document the root does not hold may not run here, or null when it may. */
function refusal(doc: unknown, root: string): string | null {
  const m = (typeof doc === 'object' && doc !== null ? doc : {}) as { kind?: unknown; file?: unknown };
  switch (m.kind) {
    case 'code':
      return null;
    case 'shell':
      return 'a shell provider only the session records (its command would run)';
    case 'http':
      return 'an http provider only the session records (it would call the endpoint it names)';
    case 'gguf': {
      if (typeof m.file !== 'string') return 'a gguf provider without a weights file';
      const models = resolve(root, 'models');
      const rel = relative(models, isAbsolute(m.file) ? m.file : resolve(root, m.file));
      const inside = rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
      return inside ? null : 'a gguf provider only the session records, whose weights file is outside this root\'s models/ folder';
    }
    default:
      return 'not a provider kind this version runs';
  }
}
