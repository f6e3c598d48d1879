/**
 * Building the composition document (src/ledger/composition.ts owns its
 * form, hash and storage) from a loaded root: every manifest, schema, tool
 * and playbook, the prompts' digests, the policy settings, and the digests of
 * the policy code, the shipped code providers and the shell providers'
 * programs. Here, above the registry and the runtime, because it reads both;
 * the document's content is the same for the same inputs wherever it is built
 * (the policy modules are named by their place under src/, as before).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { digestBytes } from '../ledger/canonical.js';
import type { Composition } from '../ledger/composition.js';
import type { LoadedRoot } from '../registry/load.js';
import { BREAKERS, BUDGETS, BUDGET_SOFT_SHARE, MEASUREMENT_WINDOW, MIN_OBSERVATIONS, MIN_PASS_RATE } from '../runtime/settings.js';

/** Code whose behaviour decides routing and validation: its digest is part of the composition. */
const POLICY_MODULES = ['../runtime/policy', '../runtime/settings', '../runtime/step', '../runtime/loop', '../runtime/planner', '../agent/planning', '../agent/session-plan', '../agent/retrieval', '../agent/settings', '../agent/extractors', '../agent/failure-lines', '../agent/answer/coverage', '../agent/answer/select', '../agent/answer/named', '../agent/goal/explain'];

function moduleDigest(rel: string): string {
  const base = fileURLToPath(new URL(rel, import.meta.url));
  for (const ext of ['.js', '.ts']) {
    if (existsSync(base + ext)) return digestBytes(readFileSync(base + ext));
  }
  return 'missing';
}

/** Build the composition document for a loaded root. */
export function buildComposition(loaded: LoadedRoot, prompts: Record<string, string>, providerCode: Record<string, string>, playbooks: Record<string, unknown> = {}, lexicon: Record<string, unknown> = {}): Composition {
  const code: Record<string, string> = {};
  for (const m of POLICY_MODULES) code[m.replace('../', '')] = moduleDigest(m);
  const shell: Record<string, string> = {};
  for (const p of Object.values(loaded.documents.providers)) {
    if (p.kind !== 'shell') continue;
    const exe = p.command[0]!;
    const path = isAbsolute(exe) ? exe : join(loaded.root, exe);
    shell[`shell:${p.id}`] = existsSync(path) && exe.includes('/') ? digestBytes(readFileSync(path)) : `command:${exe}`;
    // a script handed to an interpreter (["python3", "providers/x.py"]) is the program too
    p.command.slice(1).forEach((arg, i) => {
      const file = programFile(loaded.root, arg);
      if (file) shell[`shell:${p.id}:${i + 1}`] = digestBytes(readFileSync(file));
    });
  }
  return {
    composition: 'composition@1',
    capabilities: loaded.documents.capabilities,
    schemas: loaded.documents.schemas,
    tools: loaded.documents.tools,
    providers: loaded.documents.providers,
    playbooks,
    // the admin's lexicon reads every goal: a changed word is a changed configuration
    ...(Object.keys(lexicon).length ? { lexicon } : {}),
    prompts,
    policy: {
      settings: { breakers: BREAKERS, budgets: BUDGETS, soft_share: BUDGET_SOFT_SHARE, min_pass_rate: MIN_PASS_RATE, min_observations: MIN_OBSERVATIONS, measurement_window: MEASUREMENT_WINDOW },
      code,
    },
    provider_code: { ...providerCode, ...shell },
  };
}

/** The file an argv element names (it has a `/` and is a regular file, relative to the root), or null. */
export function programFile(root: string, arg: string): string | null {
  if (!arg.includes('/') || arg.includes('{')) return null;
  const path = isAbsolute(arg) ? arg : join(root, arg);
  try {
    return statSync(path).isFile() ? path : null;
  } catch {
    return null;
  }
}
