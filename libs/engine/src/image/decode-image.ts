import sharp from 'sharp';
import { isGray } from './is-gray';

export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  /** 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA; 8 bits per sample, sRGB. */
  channels: 1 | 2 | 3 | 4;
}

/** The decoder found the pixel data broken although the header was fine: the job fails with corrupt_image. */
export class CorruptImageError extends Error {}
/** The header announced more pixels than allowed (re-checked here because sharp enforces it again). */
export class PixelLimitError extends Error {}

/**
 * Decodes to 8-bit sRGB (or gray) pixels the way users expect (docs/design.md §4): EXIF orientation applied, embedded ICC
 * profiles converted to sRGB (sharp does that whenever it transforms colour), grayscale kept single-band, alpha
 * kept, or flattened onto white when the output format has no transparency. `failOn: 'error'` makes libvips
 * abort on truncated or corrupt data instead of returning grey rows.
 */
export async function decodeImage(input: Buffer, opts: { maxInputPixels: number; flatten: boolean }): Promise<RawImage> {
  const open = () => sharp(input, { failOn: 'error', limitInputPixels: opts.maxInputPixels, autoOrient: true });
  try {
    const meta = await sharp(input, { limitInputPixels: opts.maxInputPixels }).metadata();
    const gray = isGray(meta);
    let pipeline = open();
    if (opts.flatten && meta.hasAlpha) pipeline = pipeline.flatten({ background: '#ffffff' });
    pipeline = pipeline.toColourspace(gray ? 'b-w' : 'srgb');
    const { data, info } = await pipeline.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    const expected = (gray ? 1 : 3) + (meta.hasAlpha && !opts.flatten ? 1 : 0);
    if (info.channels !== expected) throw new Error(`decoder produced ${info.channels} channels, expected ${expected}`);
    return { data, width: info.width, height: info.height, channels: info.channels as RawImage['channels'] };
  } catch (e) {
    const msg = (e as Error).message ?? String(e);
    if (/pixel limit/i.test(msg)) throw new PixelLimitError(msg);
    throw new CorruptImageError(msg);
  }
}
