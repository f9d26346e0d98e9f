import sharp from 'sharp';
import type { OutputFormat } from '@upscaler/contracts';
import type { RawImage } from './decode-image';

/** WebP's bitstream cannot hold a side longer than this. */
export const WEBP_MAX_SIDE = 16383;

/**
 * Encoder settings per format (spec 1, output format table). AVIF effort 2 instead of libvips' default 4: on our
 * 2-core machines a 16 MP image encodes in a few seconds rather than tens (bench/engine/avif-effort.ts) for a
 * few percent larger files. The input is raw pixels, so the output carries no EXIF, ICC or XMP (spec 1).
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
      return pipeline.avif({ quality: 60, effort: 2 }).toBuffer();
  }
}
