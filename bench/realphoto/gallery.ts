import sharp, { type OverlayOptions } from 'sharp';
import { lumaY, type Plane } from '@upscaler/engine';

/** Side of a gallery crop in original pixels, and how much it is enlarged (nearest neighbour, pixels stay visible). */
export const CROP = 64;
export const ZOOM = 3;
const LABEL_H = 22;
const CAPTION_H = 26;

export interface Window {
  x: number;
  y: number;
}

/**
 * Where the tiers do worst against bicubic: the CROP-pixel window (on a 16-pixel grid) where the tiers' summed
 * absolute luma error minus bicubic's is largest. That is where a person should look.
 */
export function galleryCrop(original: Plane, bicubic: Plane, tiers: Plane[]): Window {
  const w = original.width;
  const o = lumaY(original);
  const b = lumaY(bicubic);
  const excess = new Float64Array(o.length);
  for (const t of tiers) {
    const y = lumaY(t);
    for (let i = 0; i < o.length; i++) excess[i] += Math.abs(y[i] - o[i]) - Math.abs(b[i] - o[i]);
  }
  let best: Window = { x: 0, y: 0 };
  let bestSum = -Infinity;
  for (let y0 = 0; y0 + CROP <= original.height; y0 += 16) {
    for (let x0 = 0; x0 + CROP <= w; x0 += 16) {
      let s = 0;
      for (let j = 0; j < CROP; j++) for (let i = 0; i < CROP; i++) s += excess[(y0 + j) * w + x0 + i];
      if (s > bestSum) {
        bestSum = s;
        best = { x: x0, y: y0 };
      }
    }
  }
  return best;
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function text(width: number, height: number, label: string, size: number): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>` +
      `<text x="4" y="${height - 7}" font-family="DejaVu Sans, sans-serif" font-size="${size}" fill="#111">${escapeXml(label)}</text></svg>`,
  );
}

/** One image (JPEG): a caption, then each method's crop (enlarged ZOOM times) side by side, each labelled. */
export async function writeSheet(file: string, outputs: Map<string, Plane>, order: string[], at: Window, caption: string): Promise<void> {
  const cell = CROP * ZOOM;
  const width = cell * order.length + 4 * (order.length - 1);
  const parts: OverlayOptions[] = [
    {
      input: await sharp(text(width, CAPTION_H, caption, 14))
        .png()
        .toBuffer(),
      left: 0,
      top: 0,
    },
  ];
  for (const [k, method] of order.entries()) {
    const p = outputs.get(method)!;
    const tile = await sharp(Buffer.from(p.data), { raw: { width: p.width, height: p.height, channels: p.channels as 3 } })
      .extract({ left: at.x, top: at.y, width: CROP, height: CROP })
      .resize(cell, cell, { kernel: 'nearest' })
      .png()
      .toBuffer();
    const left = k * (cell + 4);
    parts.push({
      input: await sharp(text(cell, LABEL_H, method, 13))
        .png()
        .toBuffer(),
      left,
      top: CAPTION_H,
    });
    parts.push({ input: tile, left, top: CAPTION_H + LABEL_H });
  }
  await sharp({ create: { width, height: CAPTION_H + LABEL_H + cell, channels: 3, background: '#ffffff' } })
    .composite(parts)
    // JPEG at 95 without chroma subsampling: a tenth of the PNG's size, and its own artefacts far below what is judged
    .jpeg({ quality: 95, chromaSubsampling: '4:4:4' })
    .toFile(file);
}
