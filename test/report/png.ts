// Reading a screenshot's pixels: a small PNG decoder for what Chromium writes (8-bit RGB or RGBA,
// not interlaced), so a test can tell a drawn page from a blank one without an image library.
import { inflateSync } from 'node:zlib';

export interface Pixels {
  width: number;
  height: number;
  /** bytes per pixel: 3 (RGB) or 4 (RGBA) */
  channels: number;
  data: Buffer;
}

/** Decode a PNG into raw pixels; throws on a kind of PNG this reader does not handle. */
export function decodePng(png: Buffer): Pixels {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let off = 8;
  let width = 0, height = 0, channels = 0;
  const idat: Buffer[] = [];
  while (off < png.length) {
    const len = png.readUInt32BE(off);
    const type = png.toString('latin1', off + 4, off + 8);
    const body = png.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const depth = body[8], color = body[9], interlace = body[12];
      if (depth !== 8 || (color !== 2 && color !== 6) || interlace !== 0) throw new Error(`unsupported PNG: depth ${depth}, color type ${color}, interlace ${interlace}`);
      channels = color === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const data = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = data.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? data.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[x - channels]! : 0;
      const b = prev[x]!;
      const c = x >= channels ? prev[x - channels]! : 0;
      let p: number;
      switch (filter) {
        case 0: p = 0; break;
        case 1: p = a; break;
        case 2: p = b; break;
        case 3: p = (a + b) >> 1; break;
        case 4: { const q = a + b - c; const pa = Math.abs(q - a), pb = Math.abs(q - b), pc = Math.abs(q - c); p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c; break; }
        default: throw new Error(`bad PNG filter ${filter} on row ${y}`);
      }
      out[x] = (line[x]! + p) & 0xff;
    }
  }
  return { width, height, channels, data };
}

/** Count the pixels that are not near white, and those that are clearly coloured (not grey). */
export function inkOf(p: Pixels): { ink: number; colour: number; total: number } {
  let ink = 0, colour = 0;
  for (let i = 0; i < p.data.length; i += p.channels) {
    const r = p.data[i]!, g = p.data[i + 1]!, b = p.data[i + 2]!;
    if (r < 235 || g < 235 || b < 235) ink++;
    if (Math.max(r, g, b) - Math.min(r, g, b) > 60) colour++;
  }
  return { ink, colour, total: p.width * p.height };
}
