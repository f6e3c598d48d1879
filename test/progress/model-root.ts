// A root made like `pico init`, where extract@1 → tiny_note@1 is served by the tiny real model only.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from '../daemon/helpers.js';
import { tinyManifest, TINY_PROMPT, TINY_SCHEMA } from '../models/helpers.js';

/** The root; its provider `tiny` (stories260K, one thread, the short tiny-note prompt) is not yet measured. */
export function modelRoot(): string {
  const root = tempRoot('pico-models-progress-');
  initRoot(root);
  writeFileSync(join(root, 'prompts/tiny-note.md'), TINY_PROMPT);
  writeFileSync(join(root, 'manifests/schemas/tiny_note@1.json'), JSON.stringify({ $id: 'tiny_note@1', ...TINY_SCHEMA }));
  const cap = JSON.parse(readFileSync(join(root, 'manifests/capabilities/extract@1.json'), 'utf8')) as { schemas: string[] };
  cap.schemas.push('tiny_note@1');
  writeFileSync(join(root, 'manifests/capabilities/extract@1.json'), JSON.stringify(cap));
  writeFileSync(join(root, 'manifests/providers/tiny.json'), JSON.stringify({ ...tinyManifest(), schemas: ['tiny_note@1'] }));
  return root;
}
