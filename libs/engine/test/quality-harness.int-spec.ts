jest.setTimeout(600_000);
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { imresizeBicubic, modcrop, scoreY } from '@upscaler/engine';

const SET5 = join(__dirname, '..', '..', '..', '..', 'shared', 'datasets', 'Set5');

describe('quality harness (right only if its bicubic row matches the published one within 0.05 dB)', () => {
  it.each([
    [2, 33.66],
    [3, 30.39],
    [4, 28.42],
  ])('Set5 x%i bicubic averages %f dB on Y', async (scale, published) => {
    let total = 0;
    const files = readdirSync(SET5)
      .filter((f) => f.endsWith('.png'))
      .sort();
    expect(files).toEqual(['baby.png', 'bird.png', 'butterfly.png', 'head.png', 'woman.png']);
    for (const f of files) {
      const { data, info } = await sharp(join(SET5, f)).raw().toBuffer({ resolveWithObject: true });
      const hr = modcrop({ width: info.width, height: info.height, channels: info.channels, data: new Uint8Array(data) }, scale);
      const lr = imresizeBicubic(hr, 1 / scale);
      total += scoreY(imresizeBicubic(lr, scale), hr, scale).psnr;
    }
    expect(Math.abs(total / files.length - published)).toBeLessThanOrEqual(0.05);
  });
});
