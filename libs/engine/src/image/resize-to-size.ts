import sharp from 'sharp';
import type { RawImage } from './decode-image';

/** The size a result is brought to (output by pixel size): resized to it, or resized to cover it and cropped. */
export interface OutputSize {
  width: number;
  height: number;
  /** fill: resized to width x height; cover: resized keeping the aspect ratio to cover it, overflow cropped evenly. */
  resize: 'fill' | 'cover';
}

/**
 * The upscaled image (every band, alpha included: libvips premultiplies it while resampling) resized with Lanczos-3
 * to the size a request asked for (docs/api.md "Output by pixel size"). The api picked a target that reaches the
 * size, so this only ever scales down.
 */
export async function resizeToSize(img: RawImage, size: OutputSize): Promise<RawImage> {
  if (img.width === size.width && img.height === size.height) return img;
  // Gray with alpha goes through as RGBA: libvips' b-w conversion would drop the alpha band.
  if (img.channels === 2) return bands(await resizeToSize(bands(img, [0, 0, 0, 1]), size), [0, 3]);
  const C = img.channels;
  let pipeline = sharp(img.data, { raw: { width: img.width, height: img.height, channels: C }, limitInputPixels: false }).resize(
    size.width,
    size.height,
    { kernel: 'lanczos3', fit: size.resize, position: 'centre' },
  );
  // Gray stays gray: left alone, libvips would hand the plane back as three sRGB bands.
  if (C === 1) pipeline = pipeline.toColourspace('b-w');
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  if (info.width !== size.width || info.height !== size.height || info.channels !== C) {
    throw new Error(`resized to ${info.width}x${info.height}x${info.channels}, expected ${size.width}x${size.height}x${C}`);
  }
  return { data, width: size.width, height: size.height, channels: C };
}

/** A new image of the bands `pick` names, in that order (band indexes of `img`). */
function bands(img: RawImage, pick: readonly number[]): RawImage {
  const n = img.width * img.height;
  const C = img.channels;
  const K = pick.length;
  const data = Buffer.allocUnsafe(n * K);
  for (let i = 0, p = 0, q = 0; i < n; i++, p += C) for (let k = 0; k < K; k++) data[q++] = img.data[p + pick[k]];
  return { data, width: img.width, height: img.height, channels: K as RawImage['channels'] };
}
