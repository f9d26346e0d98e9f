import sharp from 'sharp';
import { THUMBNAIL_SIDE } from '@upscaler/contracts';

export interface Thumbnail {
  /** WebP bytes (quality 70, alpha kept). */
  bytes: Buffer;
  width: number;
  height: number;
}

/**
 * A small WebP of an accepted source for job lists (docs/api.md "Jobs you can tell apart"): EXIF orientation applied
 * as the engine applies it, converted to sRGB, fitted within THUMBNAIL_SIDE without enlarging. JPEG sources decode at
 * 1/2 to 1/8 of their size (libjpeg's shrink-on-load), so a 12-megapixel photo costs tens of milliseconds, not a
 * full decode. Null when the decoder gives up on pixel data the header promised: a thumbnail is a convenience, and
 * the job itself reports a corrupt image when it runs.
 */
export async function makeThumbnail(input: Buffer, maxInputPixels: number): Promise<Thumbnail | null> {
  try {
    const { data, info } = await sharp(input, { failOn: 'error', limitInputPixels: maxInputPixels, autoOrient: true })
      .resize(THUMBNAIL_SIDE, THUMBNAIL_SIDE, { fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .webp({ quality: 70, effort: 2 })
      .toBuffer({ resolveWithObject: true });
    return { bytes: data, width: info.width, height: info.height };
  } catch {
    return null;
  }
}
