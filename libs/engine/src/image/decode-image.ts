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
 * What libjpeg and libpng say when pixel data is missing or garbled. They say it as a *warning* and go on with
 * grey (or smeared) rows, which `failOn: 'error'` lets through: a JPEG whose scan ends early but is closed by an
 * EOI marker decodes as flat grey. "extraneous bytes before marker" is left out: bytes between two segments,
 * which libjpeg skips without losing a pixel.
 */
const DATA_LOSS =
  /premature end|Corrupt JPEG data: (?!\d+ extraneous bytes)|found marker 0x[0-9a-f]+ instead of RST|bad (huffman|arithmetic) code|inconsistent progression|not enough image data|truncated/i;

/**
 * Decodes to 8-bit sRGB (or gray) pixels the way users expect (docs/design.md §4): EXIF orientation applied, embedded ICC
 * profiles converted to sRGB (sharp does that whenever it transforms colour), grayscale kept single-band, alpha
 * kept, or flattened onto white when the output format has no transparency.
 *
 * Broken pixel data is a CorruptImageError (the job fails corrupt_image, refunded) in every format: libvips runs
 * with `failOn: 'warning'`, and a failure that names lost data is final. A warning about anything else (odd
 * scan parameters of a sequential JPEG, bytes between segments) costs a second decode with `failOn: 'error'`,
 * which accepts what the decoders can read whole; its errors are corrupt data too.
 */
export async function decodeImage(input: Buffer, opts: { maxInputPixels: number; flatten: boolean }): Promise<RawImage> {
  try {
    const meta = await sharp(input, { limitInputPixels: opts.maxInputPixels }).metadata();
    const gray = isGray(meta);
    const decode = async (failOn: 'warning' | 'error'): Promise<RawImage> => {
      let pipeline = sharp(input, { failOn, limitInputPixels: opts.maxInputPixels, autoOrient: true });
      if (opts.flatten && meta.hasAlpha) pipeline = pipeline.flatten({ background: '#ffffff' });
      pipeline = pipeline.toColourspace(gray ? 'b-w' : 'srgb');
      const { data, info } = await pipeline.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
      const expected = (gray ? 1 : 3) + (meta.hasAlpha && !opts.flatten ? 1 : 0);
      if (info.channels !== expected) throw new Error(`decoder produced ${info.channels} channels, expected ${expected}`);
      return { data, width: info.width, height: info.height, channels: info.channels as RawImage['channels'] };
    };
    try {
      return await decode('warning');
    } catch (e) {
      const msg = messageOf(e);
      if (/pixel limit/i.test(msg) || DATA_LOSS.test(msg)) throw e;
      return await decode('error');
    }
  } catch (e) {
    const msg = messageOf(e);
    if (/pixel limit/i.test(msg)) throw new PixelLimitError(msg);
    throw new CorruptImageError(msg);
  }
}

function messageOf(e: unknown): string {
  return (e as Error)?.message ?? String(e);
}
