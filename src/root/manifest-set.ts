/**
 * One root's manifests checked as a set, by the rules a session worker loads them by:
 * the registry's folders (capabilities, schemas — compiled —, tools, providers, each file on its
 * own and against the others), then the playbooks against the tools, then the lexicon. It is
 * what `pico manifests check` says and what the daemon's manifest watch decides a dropped file
 * by, so the two can never disagree with what a worker would do. It opens nothing and keeps
 * nothing: the registry it fills is unwound before it returns.
 */
import type { ManifestIssue } from '../registry/boundary.js';
import { folderSource, loadRoot, ManifestError, type ManifestSource } from '../registry/load.js';
import { loadPlaybooks } from '../agent/playbooks.js';
import { loadLexicon } from '../agent/goal/load.js';
import type { ToolManifest } from '../registry/manifest.js';

export interface SetCheck {
  issues: ManifestIssue[];
  /** entries per kind, when the set loads (capabilities, schemas, tools, providers, playbooks, lexicon files) */
  counts: Record<string, number>;
}

/** Check every manifest of `root` (or of `source`, the same folders from elsewhere); never throws a ManifestError. */
export async function checkManifestSet(root: string, source: ManifestSource = folderSource(root)): Promise<SetCheck> {
  const issues: ManifestIssue[] = [];
  const counts: Record<string, number> = {};
  let tools = new Map<string, ToolManifest>();
  let registryLoaded = false;
  try {
    const loaded = loadRoot(root, undefined, source);
    for (const [k, v] of Object.entries(loaded.registry.snapshot())) counts[k] = v.length;
    tools = new Map(loaded.registry.tools);
    registryLoaded = true;
    await loaded.scope.unwind();
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    issues.push(...err.issues);
  }
  const playbooks = loadPlaybooks(source, tools);
  // without a registry every tool is unknown: only what is wrong with a playbook file itself is said
  issues.push(...(registryLoaded ? playbooks.issues : playbooks.issues.filter((i) => i.path === '')));
  const lexicon = loadLexicon(source);
  issues.push(...lexicon.issues);
  if (issues.length === 0) {
    counts.playbooks = playbooks.playbooks.length;
    counts.lexicon = Object.keys(lexicon.documents).length;
  }
  return { issues, counts };
}
