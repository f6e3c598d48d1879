/**
 * Shared by the registry suites: a minimal root (one schema, a data and a control capability, one
 * code provider) and the issues a load of a root reports. A helper file, so that a suite using them
 * does not import another suite (importing a test file runs its tests a second time).
 */
import type { ManifestIssue } from '../../src/registry/boundary.js';
import { loadRoot, ManifestError } from '../../src/registry/load.js';
import { put } from '../helpers/root.js';

/** The smallest root that loads; `provider` overrides fields of its one provider, p1. */
export function writeMiniRoot(root: string, provider: Record<string, unknown> = {}): void {
  put(root, 'manifests/schemas/note@1.json', { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'note@1', type: 'object', additionalProperties: false, required: ['text'], properties: { text: { type: 'string' } } });
  put(root, 'manifests/capabilities/extract@1.json', { manifest: 'capability@1', id: 'extract@1', description: 'x', control: false, schemas: ['note@1'] });
  put(root, 'manifests/capabilities/plan@1.json', { manifest: 'capability@1', id: 'plan@1', description: 'x', control: true, schemas: ['note@1'] });
  put(root, 'manifests/providers/p1.json', {
    manifest: 'provider@1', id: 'p1', implements: ['extract@1'], kind: 'code', entry: 'answer', max_input_bytes: 1000,
    resource: null, cost: null, security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } },
    confidence_floor: null, escalates_to: [], ...provider,
  });
}

/** The issues loading `root` reports: none when it loads; any other error is thrown. */
export function issuesOf(root: string): ManifestIssue[] {
  try {
    loadRoot(root);
  } catch (err) {
    if (err instanceof ManifestError) return err.issues;
    throw err;
  }
  return [];
}
