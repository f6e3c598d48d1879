/**
 * Content-addressed blobs: large raw outputs live in `blobs/<sha256>` beside
 * the ledger and events hold the reference `sha256:<hex>`. A blob is written
 * to a temporary name, fsynced, size-checked and renamed (durable-file.ts), so a
 * reference in the ledger never points at a half-written file. Writing the same content twice is a no-op.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../base/durable-file.js';
import { join } from 'node:path';

export const BLOB_PREFIX = 'sha256:';
/** Outputs up to this many bytes stand inline in their event (one durable write instead of two). */
export const INLINE_MAX_BYTES = 4096;

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export class BlobStore {
  constructor(readonly dir: string) {}

  /** Store `data` durably and return its reference. */
  put(data: string | Buffer): { ref: string; bytes: number } {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const hex = sha256Hex(buf);
    const path = join(this.dir, hex);
    if (!existsSync(path)) {
      mkdirSync(this.dir, { recursive: true });
      writeFileAtomicSync(path, buf, false);
    }
    return { ref: BLOB_PREFIX + hex, bytes: buf.length };
  }

  /** Read a blob by reference; verifies the content still has its hash. */
  get(ref: string): Buffer {
    if (!ref.startsWith(BLOB_PREFIX)) throw new Error(`blob reference ${JSON.stringify(ref)} does not start with ${BLOB_PREFIX}`);
    const hex = ref.slice(BLOB_PREFIX.length);
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`blob reference ${JSON.stringify(ref)} is not a sha256`);
    const buf = readFileSync(join(this.dir, hex));
    if (sha256Hex(buf) !== hex) throw new Error(`blob ${join(this.dir, hex)} is corrupt: its content no longer hashes to its name`);
    return buf;
  }

  getText(ref: string): string {
    return this.get(ref).toString('utf8');
  }

  /** Store an output: inline when small, else as a blob; returns the event fields that hold it. */
  keep(text: string): { blob: string | null; text?: string; bytes: number } {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes <= INLINE_MAX_BYTES) return { blob: null, text, bytes };
    const { ref } = this.put(text);
    return { blob: ref, bytes };
  }

  /** The output an event holds, inline or in a blob. */
  read(held: { blob: string | null; text?: string | undefined }): string {
    if (held.text !== undefined) return held.text;
    if (held.blob === null) throw new Error('the event holds neither inline text nor a blob reference');
    return this.getText(held.blob);
  }
}
