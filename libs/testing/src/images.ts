import sharp from 'sharp';

/** Small deterministic test images, made in the test (contributing/STYLE.md). */
export async function gradientImage(
  width: number,
  height: number,
  format: 'png' | 'jpeg' | 'webp' | 'avif' = 'png',
  opts: { alpha?: boolean; gray?: boolean } = {},
): Promise<Buffer> {
  const channels = opts.gray ? 1 : opts.alpha ? 4 : 3;
  const raw = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      raw[i] = (x * 255) / Math.max(1, width - 1);
      if (channels >= 3) {
        raw[i + 1] = (y * 255) / Math.max(1, height - 1);
        raw[i + 2] = ((x + y) * 7) % 256;
      }
      if (channels === 4) raw[i + 3] = x < width / 2 ? 255 : 128;
    }
  }
  let img = sharp(raw, { raw: { width, height, channels: channels as 1 | 3 | 4 } });
  // A single-band raster is written as a grayscale file only when told so (sharp defaults to sRGB).
  if (opts.gray) img = img.toColourspace('b-w');
  if (format === 'png') return img.png().toBuffer();
  if (format === 'jpeg') return img.jpeg({ quality: 90 }).toBuffer();
  if (format === 'webp') return img.webp({ quality: 90 }).toBuffer();
  return img.avif({ quality: 60, effort: 2 }).toBuffer();
}

/**
 * A PNG cut short: 64x64 of noise (which does not compress, so the cut at 60 % loses pixel rows while the header
 * stays readable). The service fails such a job `corrupt_image` and refunds it.
 */
export async function truncatedPng(): Promise<Buffer> {
  const raw = Buffer.alloc(64 * 64 * 3);
  let x = 12345;
  for (let i = 0; i < raw.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    raw[i] = x >>> 24;
  }
  const whole = await sharp(raw, { raw: { width: 64, height: 64, channels: 3 } })
    .png()
    .toBuffer();
  return whole.subarray(0, Math.floor(whole.length * 0.6));
}
