import { encodeImage, MAX_OUTPUT_SIDE } from './encode-image';

/**
 * Each encoder's longest side, as the api checks it at submit (MAX_OUTPUT_SIDE): a strip 8 pixels high that is
 * exactly that long encodes, one pixel longer is refused by the encoder. If a sharp / libvips upgrade moves a limit,
 * this fails and MAX_OUTPUT_SIDE must follow.
 */
const strip = (width: number) => ({ data: Buffer.alloc(width * 8 * 3, 90), width, height: 8, channels: 3 as const });

describe('the longest side each output format encodes', () => {
  test.each(['webp', 'avif', 'jpeg'] as const)('%s: MAX_OUTPUT_SIDE encodes, one pixel more is refused', async (format) => {
    const max = MAX_OUTPUT_SIDE[format];
    await expect(encodeImage(strip(max), format).then((b) => b.length > 0)).resolves.toBe(true);
    await expect(encodeImage(strip(max + 1), format)).rejects.toThrow(/too large|Maximum supported image dimension/);
  });

  test('the limits: WebP 16,383, AVIF 16,384, JPEG 65,500; PNG none below the output pixel limit', () => {
    expect(MAX_OUTPUT_SIDE).toEqual({ png: 2_147_483_647, jpeg: 65_500, webp: 16_383, avif: 16_384 });
  });
});
