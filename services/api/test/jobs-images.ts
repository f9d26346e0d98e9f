import sharp from 'sharp';
import { PNG_SIGNATURE_LENGTH, pngChunk as chunk, pngChunks } from '@upscaler/testing';

/**
 * Byte-level image fixtures for the jobs end-to-end suites: made in the test (contributing/STYLE.md), small in
 * pixels even when large in bytes.
 */

/**
 * The same PNG grown to exactly `totalBytes` by a private ancillary chunk (`prVt`, which decoders
 * skip) before IEND: a valid image of any byte size.
 */
export function padPngTo(png: Buffer, totalBytes: number): Buffer {
  const iend = pngChunks(png).find((c) => c.type === 'IEND')!;
  const filler = totalBytes - png.length - 12;
  if (filler < 0) throw new Error(`PNG is already ${png.length} bytes`);
  return Buffer.concat([png.subarray(0, iend.offset), chunk('prVt', Buffer.alloc(filler, 0x5a)), png.subarray(iend.offset)]);
}

/**
 * The header is intact (dimensions readable) but the compressed pixel data is garbage, with a
 * correct CRC so that only the inflate step can notice.
 */
export function pngWithGarbledIdat(png: Buffer): Buffer {
  const parts: Buffer[] = [png.subarray(0, PNG_SIGNATURE_LENGTH)];
  for (const c of pngChunks(png)) {
    const whole = png.subarray(c.offset, c.offset + 12 + c.length);
    if (c.type !== 'IDAT') {
      parts.push(whole);
      continue;
    }
    const data = Buffer.from(whole.subarray(8, 8 + c.length));
    // keep the 2-byte zlib header, scramble the deflate stream after it
    for (let i = 2; i < data.length; i++) data[i] = (data[i] * 31 + 17 + i) & 0xff;
    parts.push(chunk('IDAT', data));
  }
  return Buffer.concat(parts);
}

/** A GIF (not an accepted input format). */
export function gifImage(width = 16, height = 16): Promise<Buffer> {
  return sharp({
    create: {
      width,
      height,
      channels: 3,
      background: { r: 200, g: 30, b: 60 },
    },
  })
    .gif()
    .toBuffer();
}

/** RGBA PNG with EXIF (copyright, orientation 1) and a Display P3 ICC profile: metadata the output must not carry. */
export async function pngWithMetadata(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    raw[i * 4] = (i * 13) % 256;
    raw[i * 4 + 1] = (i * 7) % 256;
    raw[i * 4 + 2] = (i * 3) % 256;
    raw[i * 4 + 3] = i % width < width / 2 ? 255 : 128;
  }
  return sharp(raw, { raw: { width, height, channels: 4 } })
    .withIccProfile('p3')
    .withExif({ IFD0: { Copyright: 'jobs e2e', Artist: 'test' } })
    .png()
    .toBuffer();
}

/** A JPEG whose EXIF orientation is 6 (display rotated 90 degrees clockwise): stored w x h, shown h x w. */
export function jpegRotatedByExif(storedWidth: number, storedHeight: number): Promise<Buffer> {
  return sharp({
    create: {
      width: storedWidth,
      height: storedHeight,
      channels: 3,
      background: { r: 10, g: 120, b: 200 },
    },
  })
    .withMetadata({ orientation: 6 })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** The same PNG with its IHDR claiming other dimensions (CRC fixed): a decompression-bomb header. */
export function pngClaimingSize(png: Buffer, width: number, height: number): Buffer {
  const ihdr = pngChunks(png).find((c) => c.type === 'IHDR')!;
  const data = Buffer.from(png.subarray(ihdr.offset + 8, ihdr.offset + 8 + ihdr.length));
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  return Buffer.concat([png.subarray(0, ihdr.offset), chunk('IHDR', data), png.subarray(ihdr.offset + 12 + ihdr.length)]);
}

/** A two-frame animated WebP. */
export async function animatedWebp(width = 16, height = 16): Promise<Buffer> {
  const frame = (r: number) =>
    sharp({
      create: { width, height, channels: 3, background: { r, g: 40, b: 90 } },
    })
      .png()
      .toBuffer();
  return sharp([await frame(10), await frame(240)], {
    join: { animated: true },
  })
    .webp({ loop: 0, delay: [100, 100] })
    .toBuffer();
}

/** A single-band (grayscale) PNG. */
export function grayPng(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 11) % 256;
  return sharp(raw, { raw: { width, height, channels: 1 } })
    .toColourspace('b-w')
    .png()
    .toBuffer();
}
