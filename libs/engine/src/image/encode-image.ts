import sharp from 'sharp';
import type { OutputFormat } from '@upscaler/contracts';
import type { RawImage } from './decode-image';

/**
 * The longest side each encoder writes (measured with sharp 0.34 / libvips 8.17 by
 * libs/engine/src/image/encode-image.limits.spec.ts): WebP's bitstream holds 14 bits per side, libheif's AV1
 * encoder refuses more than 16,384, libjpeg(-turbo) more than 65,500 (JPEG_MAX_DIMENSION). PNG allows 2^31 - 1, far
 * beyond the output pixel limit. The api checks these at submit (the spec's fallback picks a smaller target), so
 * no job runs into them.
 */
export const MAX_OUTPUT_SIDE: Readonly<Record<OutputFormat, number>> = { png: 2_147_483_647, jpeg: 65_500, webp: 16_383, avif: 16_384 };

/**
 * Encoder settings per format (spec 1, output format table). AVIF effort 0 instead of libvips' default 4: measured
 * on our 2-core machine (bench/engine/avif.ts, docs/benchmarks.md), a 16 MP image took 16 s at effort 0, 55 s at
 * effort 2 and 362 s at effort 4 under a load average of ~15 (about 4 s / 14 s / 90 s when the machine is idle),
 * with files within 20 % of each other. The input is raw pixels, so the output carries no EXIF, ICC or XMP (spec 1).
 */
export async function encodeImage(img: RawImage, format: OutputFormat): Promise<Buffer> {
  const pipeline = sharp(img.data, {
    raw: { width: img.width, height: img.height, channels: img.channels },
    limitInputPixels: false,
  });
  if (img.channels <= 2) pipeline.toColourspace('b-w');
  switch (format) {
    case 'png':
      return pipeline.png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
    case 'jpeg':
      return pipeline.jpeg({ quality: 90, chromaSubsampling: '4:4:4' }).toBuffer();
    case 'webp':
      return pipeline.webp({ quality: 90, effort: 4 }).toBuffer();
    case 'avif':
      return pipeline.avif({ quality: 60, effort: 0 }).toBuffer();
  }
}
