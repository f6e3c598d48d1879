/**
 * The composition: one canonical document resolving everything that decides
 * what a session does — every manifest, schema, prompt, tool manifest,
 * policy setting, and the digests of the policy code and of the shipped
 * provider code. Its sha256 is event 0 of every ledger, with a separate hash
 * of the machine profile. The document is written beside the ledger as
 * `composition.json`; `pico composition` prints it; replay refuses a session
 * whose composition differs from the current one unless asked for the diff.
 *
 * This module owns the document's form, hash, text and storage; building it
 * from a loaded root (manifests, settings, code digests) is src/root/'s
 * (composition.ts there), which sits above everything it reads.
 */
import { existsSync, linkSync, mkdirSync } from 'node:fs';
import { writeFileAtomicSync } from '../base/durable-file.js';
import { join } from 'node:path';
import { canonicalJson, digestOf } from './canonical.js';

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
  /** lexicon@1 documents by file name (absent when a root has none) */
  lexicon?: Record<string, unknown>;
  prompts: Record<string, string>;
  policy: { settings: Record<string, unknown>; code: Record<string, string> };
  provider_code: Record<string, string>;
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
