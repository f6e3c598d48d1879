/**
 * The composition: one canonical document resolving everything that decides
 * what a session does — every manifest, schema, prompt, tool manifest,
 * policy setting, and the digests of the policy code and of the shipped
 * provider code. Its sha256 is event 0 of every ledger, with a separate hash
 * of the machine profile. The document is written beside the ledger as
 * `composition.json`; `pico composition` prints it; replay refuses a session
 * whose composition differs from the current one unless asked for the diff.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { writeFileAtomicSync } from '../base/durable-file.js';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadedRoot } from '../registry/load.js';
import { BREAKERS, BUDGETS, BUDGET_SOFT_SHARE, MEASUREMENT_WINDOW, MIN_OBSERVATIONS, MIN_PASS_RATE } from '../runtime/settings.js';
import { canonicalJson, digestBytes, digestOf } from './canonical.js';

export const COMPOSITION_FILE = 'composition.json';
/** Under sessions/: one shared copy per composition hash, hard-linked into each session. */
export const COMPOSITIONS_DIR = '.compositions';

export interface Composition {
  composition: 'composition@1';
  capabilities: Record<string, unknown>;
  schemas: Record<string, unknown>;
  tools: Record<string, unknown>;
  providers: Record<string, unknown>;
  /** playbook@1 manifests (absent in compositions written before playbooks existed) */
  playbooks?: Record<string, unknown>;
  prompts: Record<string, string>;
  policy: { settings: Record<string, unknown>; code: Record<string, string> };
  provider_code: Record<string, string>;
}

/** Code whose behaviour decides routing and validation: its digest is part of the composition. */
const POLICY_MODULES = ['../runtime/policy', '../runtime/settings', '../runtime/step', '../runtime/loop', '../agent/planning', '../agent/session-plan', '../agent/retrieval', '../agent/settings', '../agent/extractors'];

function moduleDigest(rel: string): string {
  const base = fileURLToPath(new URL(rel, import.meta.url));
  for (const ext of ['.js', '.ts']) {
    if (existsSync(base + ext)) return digestBytes(readFileSync(base + ext));
  }
  return 'missing';
}

/** Build the composition document for a loaded root. */
export function buildComposition(loaded: LoadedRoot, prompts: Record<string, string>, providerCode: Record<string, string>, playbooks: Record<string, unknown> = {}): Composition {
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

export function compositionHash(c: Composition): string {
  return digestOf(c);
}

/** The document as written beside a ledger: canonical key order, indented for people. */
export function compositionText(c: Composition): string {
  return JSON.stringify(JSON.parse(canonicalJson(c)), null, 2) + '\n';
}

/**
 * Put the document beside a ledger. Every session of one composition shares
 * one copy, kept in `store` under its hash and hard-linked into the session
 * folder (one metadata operation instead of writing ~20 kB per job); where a
 * link cannot be made (another filesystem), the session gets its own copy.
 */
export function writeComposition(sessionDir: string, text: string, hash: string, store: string): void {
  const path = join(sessionDir, COMPOSITION_FILE);
  const shared = join(store, `${hash.replace(/^sha256:/, '')}.json`);
  try {
    if (!existsSync(shared)) writeAtomically(shared, text, store);
    linkSync(shared, path);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
  }
  writeAtomically(path, text, sessionDir);
}

function writeAtomically(path: string, text: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileAtomicSync(path, text, false);
}

/** Top-level keys (and provider/schema ids) that differ between two compositions. */
export function diffCompositions(a: Composition, b: Composition): string[] {
  const out: string[] = [];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of [...keys].sort()) {
    const av = (a as unknown as Record<string, unknown>)[k];
    const bv = (b as unknown as Record<string, unknown>)[k];
    if (canonicalJson(av) === canonicalJson(bv)) continue;
    if (av && bv && typeof av === 'object' && typeof bv === 'object' && !Array.isArray(av)) {
      const inner = new Set([...Object.keys(av), ...Object.keys(bv as object)]);
      for (const ik of [...inner].sort()) {
        const x = (av as Record<string, unknown>)[ik];
        const y = (bv as Record<string, unknown>)[ik];
        if (canonicalJson(x ?? null) !== canonicalJson(y ?? null)) out.push(`${k}.${ik}: ${x === undefined ? 'added' : y === undefined ? 'removed' : 'changed'}`);
      }
    } else out.push(`${k}: changed`);
  }
  return out;
}
