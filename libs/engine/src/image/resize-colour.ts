import sharp from 'sharp';
import type { RawImage } from './decode-image';

/**
 * The network's output resized down to the job's scale with Lanczos-3 (registry `outscale`: the sharp tier runs
 * its x4 network for 2k and 3k and resizes, as Real-ESRGAN's own `--outscale` does; docs/engine.md). Only the
 * colour bands are resized: the alpha channel, if any, is left for upscaleAlphaInto, which fills it from the
 * source at the final size.
 */
export async function resizeColour(img: RawImage, width: number, height: number): Promise<RawImage> {
  const C = img.channels;
  const bands = C <= 2 ? 1 : 3;
  const n = img.width * img.height;
  const colour = C === bands ? img.data : Buffer.allocUnsafe(n * bands);
  if (colour !== img.data) {
    for (let i = 0, p = 0, q = 0; i < n; i++, p += C) for (let b = 0; b < bands; b++) colour[q++] = img.data[p + b];
  }
  let pipeline = sharp(colour, { raw: { width: img.width, height: img.height, channels: bands }, limitInputPixels: false }).resize(
    width,
    height,
    { kernel: 'lanczos3', fit: 'fill' },
  );
  // One band out: left alone, sharp would hand back the gray plane as three sRGB bands.
  if (bands === 1) pipeline = pipeline.extractChannel(0);
  const small = await pipeline.raw().toBuffer();
  const m = width * height;
  if (small.length !== m * bands) throw new Error(`resized colour has ${small.length} bytes, expected ${m * bands}`);
  if (C === bands) return { data: small, width, height, channels: C };
  const data = Buffer.alloc(m * C);
  for (let i = 0, p = 0, q = 0; i < m; i++, p += C) for (let b = 0; b < bands; b++) data[p + b] = small[q++];
  return { data, width, height, channels: C };
}
