import { fillTransparentColour, flattenOnWhite } from './transparent-colour';
import type { RawImage } from './decode-image';

const rgba = (pixels: number[][], width: number): RawImage => ({
  data: Buffer.from(pixels.flat()),
  width,
  height: pixels.length / width,
  channels: 4,
});

describe('the colour under transparency, filled from the visible pixels', () => {
  it('transparent pixels take the colour of the visible ones next to them; visible pixels and alpha are kept', () => {
    const img = rgba(
      [
        [200, 60, 40, 255],
        [10, 20, 30, 128],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
      ],
      5,
    );
    fillTransparentColour(img);
    const px = (i: number) => Array.from(img.data.subarray(i * 4, i * 4 + 4));
    expect([px(0), px(1)]).toEqual([
      [200, 60, 40, 255],
      [10, 20, 30, 128],
    ]);
    // a blend weighted by alpha: the opaque red counts twice as much as the half-transparent dark pixel
    for (const i of [2, 3, 4]) {
      const [r, g, b, a] = px(i);
      expect([a, r > 100 && r < 200, g > 30 && g < 60, b > 30 && b < 40]).toEqual([0, true, true, true]);
    }
  });

  it('an image with no transparent pixel, or nothing visible, is left as it is', () => {
    const opaque = rgba(
      [
        [1, 2, 3, 255],
        [4, 5, 6, 255],
      ],
      2,
    );
    const clear = rgba(
      [
        [1, 2, 3, 0],
        [4, 5, 6, 0],
      ],
      2,
    );
    fillTransparentColour(opaque);
    fillTransparentColour(clear);
    expect([Array.from(opaque.data), Array.from(clear.data)]).toEqual([
      [1, 2, 3, 255, 4, 5, 6, 255],
      [1, 2, 3, 0, 4, 5, 6, 0],
    ]);
  });

  it('far from anything visible (beyond the largest radius), the mean visible colour', () => {
    const width = 200;
    const pixels = Array.from({ length: width }, (_, x) => (x === 0 ? [90, 120, 150, 255] : [0, 0, 0, 0]));
    const img = rgba(pixels, width);
    fillTransparentColour(img);
    expect(Array.from(img.data.subarray((width - 1) * 4, width * 4))).toEqual([90, 120, 150, 0]);
  });

  it('flattening onto white: colour x alpha + 255 x (1 - alpha), alpha dropped', () => {
    const flat = flattenOnWhite(
      rgba(
        [
          [200, 60, 40, 255],
          [200, 60, 40, 0],
          [0, 0, 0, 51],
        ],
        3,
      ),
    );
    expect([flat.channels, Array.from(flat.data)]).toEqual([3, [200, 60, 40, 255, 255, 255, 204, 204, 204]]);
  });
});
