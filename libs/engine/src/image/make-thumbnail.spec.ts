import sharp from 'sharp';
import { THUMBNAIL_SIDE } from '@upscaler/contracts';
import { makeThumbnail } from './make-thumbnail';

const LIMIT = 50_000_000;

/** A w x h image: left half red, right half blue (so orientation and colour can be read back). */
function halves(w: number, h: number, channels: 3 | 4 = 3): Buffer {
  const px = Buffer.alloc(w * h * channels);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * channels;
      px[i] = x < w / 2 ? 255 : 0;
      px[i + 2] = x < w / 2 ? 0 : 255;
      if (channels === 4) px[i + 3] = x < w / 2 ? 255 : 0;
    }
  }
  return px;
}

async function pixel(webp: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(webp).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [...data.subarray(i, i + info.channels)];
}

describe('makeThumbnail', () => {
  it('fits a landscape JPEG within 160 px as WebP, keeping its aspect ratio and colours', async () => {
    const jpeg = await sharp(halves(640, 480), { raw: { width: 640, height: 480, channels: 3 } })
      .jpeg({ quality: 95 })
      .toBuffer();
    const t = await makeThumbnail(jpeg, LIMIT);
    expect(t).not.toBeNull();
    expect([t!.width, t!.height]).toEqual([THUMBNAIL_SIDE, 120]);
    const meta = await sharp(t!.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 160, 120]);
    const [r1, , b1] = await pixel(t!.bytes, 20, 60);
    const [r2, , b2] = await pixel(t!.bytes, 140, 60);
    expect(r1).toBeGreaterThan(200);
    expect(b1).toBeLessThan(60);
    expect(r2).toBeLessThan(60);
    expect(b2).toBeGreaterThan(200);
  });

  it('applies EXIF orientation as the engine does (orientation 6: rotated 90 degrees clockwise)', async () => {
    const jpeg = await sharp(halves(640, 480), { raw: { width: 640, height: 480, channels: 3 } })
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const t = await makeThumbnail(jpeg, LIMIT);
    expect([t!.width, t!.height]).toEqual([120, 160]);
    // the stored left (red) half is the displayed top half
    const [rTop, , bTop] = await pixel(t!.bytes, 60, 20);
    const [rBottom, , bBottom] = await pixel(t!.bytes, 60, 140);
    expect([rTop > 200, bTop < 60]).toEqual([true, true]);
    expect([rBottom < 60, bBottom > 200]).toEqual([true, true]);
  });

  it('keeps transparency of a cut-out PNG', async () => {
    const png = await sharp(halves(400, 200, 4), { raw: { width: 400, height: 200, channels: 4 } })
      .png()
      .toBuffer();
    const t = await makeThumbnail(png, LIMIT);
    expect([t!.width, t!.height]).toEqual([160, 80]);
    expect((await pixel(t!.bytes, 20, 40))[3]).toBe(255);
    expect((await pixel(t!.bytes, 140, 40))[3]).toBe(0);
  });

  it('never enlarges an image smaller than the thumbnail', async () => {
    const png = await sharp(halves(100, 50), { raw: { width: 100, height: 50, channels: 3 } })
      .png()
      .toBuffer();
    const t = await makeThumbnail(png, LIMIT);
    expect([t!.width, t!.height]).toEqual([100, 50]);
  });

  it('answers null for pixel data the decoder cannot read (the job reports it when it runs)', async () => {
    const jpeg = await sharp(halves(640, 480), { raw: { width: 640, height: 480, channels: 3 } })
      .jpeg()
      .toBuffer();
    const truncated = jpeg.subarray(0, 600);
    await expect(makeThumbnail(truncated, LIMIT)).resolves.toBeNull();
  });
});
