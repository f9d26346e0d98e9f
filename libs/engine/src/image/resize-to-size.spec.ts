import type { RawImage } from './decode-image';
import { resizeToSize } from './resize-to-size';

/** A width x height image of `channels` bands: the left half black, the right half white, alpha opaque. */
function halves(width: number, height: number, channels: number): RawImage {
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * channels;
      const colour = channels === 2 || channels === 4 ? channels - 1 : channels;
      for (let b = 0; b < colour; b++) data[p + b] = x < width / 2 ? 0 : 255;
      if (colour < channels) data[p + colour] = 255;
    }
  }
  return { data, width, height, channels: channels as RawImage['channels'] };
}

describe('resizeToSize (output by pixel size)', () => {
  it.each([1, 2, 3, 4])('keeps %i bands and lands on the exact size', async (channels) => {
    const out = await resizeToSize(halves(400, 300, channels), { width: 257, height: 93, resize: 'fill' });
    expect([out.width, out.height, out.channels, out.data.length]).toEqual([257, 93, channels, 257 * 93 * channels]);
  });

  it('cover crops evenly: a 400x100 image covered into 100x100 keeps its middle (the black-white edge at the centre)', async () => {
    const out = await resizeToSize(halves(400, 100, 3), { width: 100, height: 100, resize: 'cover' });
    const at = (x: number) => out.data[(50 * 100 + x) * 3];
    expect([out.width, out.height]).toEqual([100, 100]);
    expect([at(0), at(30), at(70), at(99)]).toEqual([0, 0, 255, 255]);
  });

  it('fill stretches: the edge stays at the middle of the new width', async () => {
    const out = await resizeToSize(halves(400, 100, 3), { width: 100, height: 100, resize: 'fill' });
    const at = (x: number) => out.data[(50 * 100 + x) * 3];
    expect([at(10), at(45), at(55), at(90)]).toEqual([0, 0, 255, 255]);
  });

  it('returns the image itself when it already has the size', async () => {
    const img = halves(10, 10, 3);
    expect(await resizeToSize(img, { width: 10, height: 10, resize: 'fill' })).toBe(img);
  });
});
