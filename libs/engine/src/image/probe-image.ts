import sharp, { type Metadata } from 'sharp';
import { EngineError } from '../engine-errors';
import type { ImageProbe } from '../engine.port';
import { isGray } from './is-gray';
import { isAnimatedPng, sniffFormat } from './sniff-format';

/** What sharp reports as the decoder for each format we accept (AVIF is a HEIF container with AV1). */
const DECODER_OF = { jpeg: 'jpeg', png: 'png', webp: 'webp', avif: 'heif' } as const;

/**
 * Reads only the header (docs/design.md §4, images): format from the bytes, oriented dimensions, channels, alpha,
 * animation. Refuses decompression bombs by their announced size before any pixel is decoded.
 */
export async function probeImage(input: Buffer, maxInputPixels: number): Promise<ImageProbe> {
  const format = sniffFormat(input);
  if (!format) throw new EngineError('unsupported_media_type');
  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch (e) {
    throw new EngineError('invalid_image', undefined, { cause: (e as Error).message });
  }
  // The bytes say one format and the decoder found another (or HEIC inside an AVIF-branded box): not ours.
  if (meta.format !== DECODER_OF[format] || (format === 'avif' && meta.compression !== 'av1')) {
    throw new EngineError('unsupported_media_type');
  }
  if (!(meta.width > 0 && meta.height > 0)) throw new EngineError('invalid_image');
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (width * height > maxInputPixels) {
    throw new EngineError('image_dimensions_too_large', undefined, { width, height, maxInputPixels });
  }
  const animated = (meta.pages ?? 1) > 1 || (format === 'png' && isAnimatedPng(input));
  if (animated) throw new EngineError('animated_image');
  const gray = isGray(meta);
  return { format, width, height, channels: (gray ? 1 : 3) + (meta.hasAlpha ? 1 : 0), hasAlpha: meta.hasAlpha, animated };
}
