import sharp from 'sharp';
import type { RawImage } from './decode-image';

/**
 * Alpha never goes through the network (it was trained on colour): it is resized on its own with Lanczos-3 to
 * the output size and written into the output's last channel (docs/design.md §4: alpha preserved and upscaled properly).
 */
export async function upscaleAlphaInto(src: RawImage, out: RawImage): Promise<void> {
  const C = src.channels;
  if (C !== 2 && C !== 4) return;
  const n = src.width * src.height;
  const alpha = Buffer.allocUnsafe(n);
  for (let i = 0, p = C - 1; i < n; i++, p += C) alpha[i] = src.data[p];
  const big = await sharp(alpha, { raw: { width: src.width, height: src.height, channels: 1 }, limitInputPixels: false })
    .resize(out.width, out.height, { kernel: 'lanczos3', fit: 'fill' })
    // One band out: left alone, sharp would hand back the gray plane as three sRGB bands.
    .extractChannel(0)
    .raw()
    .toBuffer();
  const m = out.width * out.height;
  if (big.length !== m) throw new Error(`alpha plane has ${big.length} bytes, expected ${m}`);
  for (let i = 0, p = C - 1; i < m; i++, p += C) out.data[p] = big[i];
}
