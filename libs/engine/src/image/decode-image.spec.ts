import sharp, { type Sharp } from 'sharp';
import { CorruptImageError, decodeImage } from './decode-image';
import { pngChunk, pngChunks } from '@upscaler/testing';

/**
 * docs/engine.md: an image whose header is fine but whose pixel data is missing or broken fails the job
 * corrupt_image (refunded), in every accepted format; it is never upscaled as flat grey. Images with
 * harmless irregularities still decode. Every file is made here, from a noisy raster, then cut or patched.
 */

const W = 96;
const H = 64;
const decode = (input: Buffer) => decodeImage(input, { maxInputPixels: 1_000_000, flatten: false });

function noise(channels: 3 | 4 = 3): Sharp {
  const raw = Buffer.alloc(W * H * channels);
  let s = 7;
  for (let i = 0; i < raw.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    raw[i] = (s >> 16) & 0xff;
  }
  return sharp(raw, { raw: { width: W, height: H, channels } });
}

async function outcome(input: Buffer): Promise<string> {
  try {
    const img = await decode(input);
    return `decoded ${img.width}x${img.height}`;
  } catch (e) {
    return e instanceof CorruptImageError ? 'corrupt' : `other error: ${(e as Error).message}`;
  }
}

/** JPEG segments before the scan: [marker, offset, length]. */
function jpegSegments(jpeg: Buffer): Array<{ marker: number; offset: number; length: number }> {
  const out: Array<{ marker: number; offset: number; length: number }> = [];
  let p = 2;
  while (p + 4 <= jpeg.length) {
    const marker = jpeg[p + 1];
    const length = jpeg.readUInt16BE(p + 2);
    out.push({ marker, offset: p, length });
    if (marker === 0xda) break;
    p += 2 + length;
  }
  return out;
}

/** The scan cut at `fraction` of the file and closed with an EOI marker: the header promises every row, the data ends early. */
function jpegWithShortScan(jpeg: Buffer, fraction: number): Buffer {
  return Buffer.concat([jpeg.subarray(0, Math.floor(jpeg.length * fraction)), Buffer.from([0xff, 0xd9])]);
}

/** Every chunk intact (lengths and CRCs right), but the compressed pixel data is only its first half. */
function pngWithShortIdat(png: Buffer): Buffer {
  const chunks = pngChunks(png);
  const idat = Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data));
  const head = chunks.filter((c) => c.type !== 'IDAT' && c.type !== 'IEND').map((c) => pngChunk(c.type, c.data));
  return Buffer.concat([
    png.subarray(0, 8),
    ...head,
    pngChunk('IDAT', idat.subarray(0, idat.length >> 1)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A simple-format WebP (VP8 or VP8L) with its one chunk cut in half and the RIFF and chunk sizes fixed to match. */
function webpWithShortChunk(webp: Buffer): Buffer {
  const fourcc = webp.toString('latin1', 12, 16);
  const length = (webp.readUInt32LE(16) >> 1) & ~1;
  const head = Buffer.alloc(20);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(12 + length, 4);
  head.write('WEBP', 8, 'latin1');
  head.write(fourcc, 12, 'latin1');
  head.writeUInt32LE(length, 16);
  return Buffer.concat([head, webp.subarray(20, 20 + length)]);
}

describe('truncated or broken pixel data fails with CorruptImageError, in every format', () => {
  it.each([0.3, 0.6, 0.95])('baseline JPEG whose scan ends early (at %f) but is closed by EOI', async (fraction) => {
    const jpeg = await noise().jpeg({ quality: 90 }).toBuffer();
    const cut = jpegWithShortScan(jpeg, fraction);
    expect((await sharp(cut).metadata()).width).toBe(W); // the header is intact
    expect(await outcome(cut)).toBe('corrupt');
  });

  it('progressive JPEG whose scans end early but is closed by EOI', async () => {
    const jpeg = await noise().jpeg({ quality: 90, progressive: true }).toBuffer();
    expect(await outcome(jpegWithShortScan(jpeg, 0.5))).toBe('corrupt');
  });

  it('JPEG with garbage in the middle of its scan', async () => {
    const jpeg = Buffer.from(await noise().jpeg({ quality: 90 }).toBuffer());
    for (let i = Math.floor(jpeg.length * 0.4); i < jpeg.length * 0.6; i++) jpeg[i] = (i * 37) & 0xfe;
    expect(await outcome(jpeg)).toBe('corrupt');
  });

  it.each([
    ['JPEG', () => noise().jpeg().toBuffer()],
    ['PNG', () => noise().png().toBuffer()],
    ['interlaced PNG', () => noise().png({ progressive: true }).toBuffer()],
    ['lossy WebP', () => noise().webp().toBuffer()],
    ['lossless WebP', () => noise().webp({ lossless: true }).toBuffer()],
    ['AVIF', () => noise().avif({ effort: 0 }).toBuffer()],
  ])('%s cut at 60 %% of its bytes', async (_, make) => {
    const whole = await make();
    expect(await outcome(whole.subarray(0, Math.floor(whole.length * 0.6)))).toBe('corrupt');
  });

  it('PNG whose compressed data stops halfway, every chunk well formed', async () => {
    expect(await outcome(pngWithShortIdat(await noise().png().toBuffer()))).toBe('corrupt');
  });

  it.each([
    ['lossy', {}],
    ['lossless', { lossless: true }],
  ])('%s WebP whose chunk stops halfway, RIFF sizes consistent', async (_, opts) => {
    expect(await outcome(webpWithShortChunk(await noise().webp(opts).toBuffer()))).toBe('corrupt');
  });
});

describe('whole images still decode, irregular but harmless ones too', () => {
  it.each([
    ['JPEG', () => noise().jpeg().toBuffer()],
    ['progressive JPEG', () => noise().jpeg({ progressive: true }).toBuffer()],
    ['PNG', () => noise().png().toBuffer()],
    ['interlaced PNG', () => noise().png({ progressive: true }).toBuffer()],
    ['RGBA PNG', () => noise(4).png().toBuffer()],
    ['lossy WebP with alpha', () => noise(4).webp().toBuffer()],
    ['lossless WebP', () => noise().webp({ lossless: true }).toBuffer()],
    ['AVIF', () => noise().avif({ effort: 0 }).toBuffer()],
  ])('%s', async (_, make) => {
    expect(await outcome(await make())).toBe(`decoded ${W}x${H}`);
  });

  it('a JPEG with bytes after its end marker', async () => {
    const jpeg = await noise().jpeg().toBuffer();
    expect(await outcome(Buffer.concat([jpeg, Buffer.from('trailing bytes of some uploader')]))).toBe(`decoded ${W}x${H}`);
  });

  it('a JPEG whose sequential scan header has odd (ignored) progression fields: libjpeg warns, the pixels are whole', async () => {
    const jpeg = Buffer.from(await noise().jpeg().toBuffer());
    const sos = jpegSegments(jpeg).find((s) => s.marker === 0xda)!;
    jpeg[sos.offset + 2 + sos.length - 1] = 0x01; // Al = 1 ("Invalid SOS parameters for sequential JPEG")
    const reference = await sharp(await noise().jpeg().toBuffer())
      .raw()
      .toBuffer();
    const img = await decode(jpeg);
    expect([img.width, img.height, Buffer.compare(img.data, reference)]).toEqual([W, H, 0]);
  });

  it('a JPEG with extraneous bytes between two header segments (libjpeg warns, nothing is lost)', async () => {
    const jpeg = await noise().jpeg().toBuffer();
    const first = jpegSegments(jpeg)[0];
    const end = first.offset + 2 + first.length;
    const patched = Buffer.concat([jpeg.subarray(0, end), Buffer.from([0x12, 0x34, 0x56]), jpeg.subarray(end)]);
    expect(await outcome(patched)).toBe(`decoded ${W}x${H}`);
  });

  it('a PNG with an ancillary chunk whose CRC is wrong, and one with an unknown private chunk', async () => {
    const png = await noise().png().toBuffer();
    const ihdrEnd = 8 + 12 + 13;
    const badCrc = pngChunk('tEXt', Buffer.from('Comment\0made by a sloppy encoder'));
    badCrc[badCrc.length - 1] ^= 0xff;
    const withBadCrc = Buffer.concat([png.subarray(0, ihdrEnd), badCrc, png.subarray(ihdrEnd)]);
    const withPrivate = Buffer.concat([png.subarray(0, ihdrEnd), pngChunk('prVt', Buffer.alloc(64, 7)), png.subarray(ihdrEnd)]);
    expect([await outcome(withBadCrc), await outcome(withPrivate)]).toEqual([`decoded ${W}x${H}`, `decoded ${W}x${H}`]);
  });
});
