import type { InputFormat } from '@upscaler/contracts';

/**
 * Spec 1: the input format is detected from the bytes, never from a name or content type. Only JPEG, PNG,
 * WebP and AVIF are recognised; everything else (GIF, TIFF, BMP, SVG, HEIC, JPEG XL, ...) answers null.
 */
export function sniffFormat(bytes: Uint8Array): InputFormat | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return 'png';
  if (bytes.length >= 16 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp';
  if (isAvif(bytes)) return 'avif';
  return null;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** AVIF still images and image sequences (the latter are then refused as animated). */
const AVIF_BRANDS = new Set(['avif', 'avis']);

function ascii(b: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...b.subarray(start, end));
}

/** An ISOBMFF file whose first box is `ftyp` with an AVIF major or compatible brand (HEIC has neither). */
function isAvif(b: Uint8Array): boolean {
  if (b.length < 16 || ascii(b, 4, 8) !== 'ftyp') return false;
  const boxSize = ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
  if (boxSize < 16 || boxSize > b.length || boxSize % 4 !== 0) return false;
  if (AVIF_BRANDS.has(ascii(b, 8, 12))) return true;
  for (let p = 16; p + 4 <= boxSize; p += 4) if (AVIF_BRANDS.has(ascii(b, p, p + 4))) return true;
  return false;
}

/**
 * An animated PNG (APNG) carries an `acTL` chunk before its first `IDAT`; decoders that ignore it would
 * silently upscale only the first frame, so we look for it ourselves.
 */
export function isAnimatedPng(b: Uint8Array): boolean {
  let p = 8;
  while (p + 8 <= b.length) {
    const len = ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
    const type = ascii(b, p + 4, p + 8);
    if (type === 'acTL') return true;
    if (type === 'IDAT' || type === 'IEND') return false;
    p += 12 + len;
  }
  return false;
}
