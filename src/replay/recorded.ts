/**
 * A session's own manifests, for replaying it after the root's have changed.
 *
 * Why: the composition document written beside a ledger holds every manifest the session ran
 * under — capabilities, schemas, tools, providers, playbooks, the lexicon — whole. When the root
 * has changed since (a model removed with `pico models rm`, a provider added), the session's
 * inputs have not: replay loads the recorded manifests instead of the folders and runs under them.
 * What the document holds only as digests — the code, the prompts, the shell providers' programs —
 * is still read from this root and this package, so the composition rebuilt from the recorded
 * manifests equals the recorded one only when those are as they were; replay checks that, and
 * otherwise refuses naming what differs, as before. A model's weights are read only if the
 * session called it (an unused model may be gone).
 */
import type { Logger } from 'pino';
import type { Composition } from '../ledger/composition.js';
import type { ManifestSource } from '../registry/load.js';
import { openRuntime, type Runtime } from '../root/runtime.js';

/** The file name each recorded document is served under, per manifest folder. */
function filesOf(doc: Composition): Record<string, Record<string, unknown>> {
  const byId = (docs: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(docs ?? {}).map(([id, d]) => [`${id}.json`, d]));
  return {
    schemas: byId(doc.schemas), capabilities: byId(doc.capabilities), tools: byId(doc.tools), providers: byId(doc.providers),
    playbooks: byId(doc.playbooks),
    // the lexicon is recorded by file name already
    lexicon: doc.lexicon ?? {},
  };
}

/** Serve a composition document's manifests to the loader, as if they were the root's files. */
export function compositionSource(doc: Composition): ManifestSource {
  const files = filesOf(doc);
  return {
    list: (dir) => (Object.hasOwn(files, dir) ? Object.keys(files[dir]!).sort() : null),
    read(file) {
      const [, dir, name] = /^manifests\/([^/]+)\/(.+)$/.exec(file) ?? [];
      const d = dir && name && Object.hasOwn(files, dir) ? files[dir]![name] : undefined;
      if (d === undefined) throw new Error(`${file} is not in the session's recorded composition`);
      return JSON.stringify(d);
    },
  };
}

/**
 * A runtime of `root` under the manifests `doc` recorded, or null when they do not load here (a
 * shell provider's program is gone, say): the caller compares its composition with the recorded one.
 */
export async function openRecorded(root: string, doc: Composition, log: Logger): Promise<Runtime | null> {
  try {
    return await openRuntime(root, { source: compositionSource(doc), log });
  } catch (err) {
    log.warn({ err: (err as Error).message }, `the session's recorded manifests do not load on this root: ${(err as Error).message}`);
    return null;
  }
}
