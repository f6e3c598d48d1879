/**
 * Digests in the ledger's spelling, `sha256:<hex>`: of a value's canonical
 * JSON (the one implementation lives in the ladder, which hashes schemas the
 * same way) or of raw bytes.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../ladder/canonical.js';

export { canonicalJson };

/** `sha256:<hex>` of a value's canonical JSON. */
export function digestOf(value: unknown): string {
  return 'sha256:' + createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** `sha256:<hex>` of raw bytes or text. */
export function digestBytes(data: string | Buffer): string {
  return 'sha256:' + createHash('sha256').update(data).digest('hex');
}
