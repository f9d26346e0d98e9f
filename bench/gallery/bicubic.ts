import sharp from 'sharp';

/**
 * The reference every gallery sheet starts from: the image at 4x by bicubic (sharp's cubic kernel, what a browser or
 * an editor does), timed. Shared by bench/gallery/upscale.ts and bench/illustration/measure.ts.
 */
export async function bicubicX4(input: Buffer): Promise<{ png: Buffer; ms: number; width: number; height: number }> {
  const meta = await sharp(input).metadata();
  const [width, height] = [meta.width! * 4, meta.height! * 4];
  const t0 = performance.now();
  const png = await sharp(input).resize(width, height, { kernel: 'cubic' }).png().toBuffer();
  return { png, ms: Math.round(performance.now() - t0), width, height };
}
