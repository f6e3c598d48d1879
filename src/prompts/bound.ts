/**
 * Bounding the text a model sees.
 *
 * Two limits apply to the data section: the provider's own `max_input_bytes`
 * and the hard `max_bytes_to_model` breaker (8 kB, design §4). The runtime
 * trips the breaker before a call; the model adapters cut again here, so a
 * model can never be shown more whatever the caller did. Cutting is by UTF-8
 * bytes and never splits a character. This module does not decide what to do
 * about a cut (the runtime records it); it only cuts and says how much.
 */

/** The hard breaker on bytes shown to a model (design §4). */
export const MAX_BYTES_TO_MODEL = 8 * 1024;

export interface Cut {
  text: string;
  /** bytes kept */
  bytes: number;
  /** bytes dropped from the end; 0 when the text fit */
  dropped: number;
}

/** Keep at most `maxBytes` UTF-8 bytes of `text`, cutting before a character that would not fit. */
export function cutUtf8(text: string, maxBytes: number): Cut {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return { text, bytes: buf.length, dropped: 0 };
  let end = Math.max(0, maxBytes);
  // step back over continuation bytes (10xxxxxx) so the cut lands on a character start
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return { text: buf.subarray(0, end).toString('utf8'), bytes: end, dropped: buf.length - end };
}

/** The data-section limit for a provider: its own limit, never above the breaker. */
export function inputLimit(maxInputBytes: number): number {
  return Math.min(maxInputBytes, MAX_BYTES_TO_MODEL);
}
