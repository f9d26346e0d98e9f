import sharp from 'sharp';
import type { OutputFormat } from '@upscaler/contracts';
import type { RawImage } from './decode-image';

/** WebP's bitstream cannot hold a side longer than this. */
export const WEBP_MAX_SIDE = 16383;

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
