/**
 * Sentences for a file's media header: image_properties@1 and
 * audio_properties@1 (the second modality, read from the first bytes of a
 * file by providers/media-header.sh). Formats and encodings are printed
 * only when they are one of the schema's words; numbers as numbers; the
 * parser's note (fixed words, never file content) only quoted; an absent
 * value is said to be unknown.
 */
import { duration, int, num, oneOf, quote, str } from './words.js';

type Fact = Record<string, unknown>;

const IMAGE_FORMATS = ['png', 'gif', 'jpeg', 'bmp'] as const;
const COLORS: Record<string, string> = { gray: 'greyscale', rgb: 'RGB', palette: 'palette', gray_alpha: 'greyscale with alpha', rgba: 'RGBA', ycbcr: 'YCbCr', cmyk: 'CMYK' };

/** image_properties@1: format, size in pixels, depth and colour. */
export function imageSentence(f: Fact): string {
  const format = oneOf(f.format, IMAGE_FORMATS);
  if (format === null) return `The file is not an image this reader knows (PNG, GIF, JPEG, BMP)${str(f.note) ? `: ${quote(f.note)}` : ''}.`;
  const w = int(f.width);
  const h = int(f.height);
  const depth = int(f.bit_depth);
  const color = oneOf(f.color, Object.keys(COLORS));
  let s = `A ${format.toUpperCase()} image, ${w !== null && h !== null ? `${w} × ${h} pixels` : 'of unknown size'}`;
  const extra = [depth !== null ? `${depth} bits per sample` : null, color !== null ? COLORS[color] : null].filter(Boolean);
  if (extra.length) s += ` (${extra.join(', ')})`;
  s += '.';
  if (str(f.note)) s += ` Note: ${quote(f.note)}.`;
  return s;
}

/** audio_properties@1: format, channels, rate, depth and duration. */
export function audioSentence(f: Fact): string {
  const format = oneOf(f.format, ['wav'] as const);
  if (format === null) return `The file is not audio this reader knows (WAV)${str(f.note) ? `: ${quote(f.note)}` : ''}.`;
  const encoding = oneOf(f.encoding, ['pcm', 'float', 'other'] as const);
  const ch = int(f.channels);
  const rate = int(f.sample_rate_hz);
  const bits = int(f.bits_per_sample);
  const secs = num(f.duration_seconds);
  const parts = [
    ch !== null ? (ch === 1 ? 'mono' : ch === 2 ? 'stereo' : `${ch} channels`) : 'channels unknown',
    rate !== null ? `${rate} Hz` : 'sample rate unknown',
    bits !== null ? `${bits}-bit` : null,
  ].filter(Boolean);
  let s = `A WAV ${encoding === 'pcm' ? 'PCM ' : encoding === 'float' ? 'floating-point ' : ''}recording, ${parts.join(', ')}; ${secs !== null ? `${duration(secs)} long` : 'its length is unknown'}.`;
  if (str(f.note)) s += ` Note: ${quote(f.note)}.`;
  return s;
}
