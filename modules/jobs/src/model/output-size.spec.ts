import type { RequestedSize, SizeFit } from '@upscaler/contracts';
import { planSize, smallestTargetReaching, targetForSize } from './output-size';

const size = (width: number | null, height: number | null, fit: SizeFit = 'within'): RequestedSize => ({ width, height, fit });

describe('output by pixel size (docs/api.md "Output by pixel size")', () => {
  it('one side: the other follows the aspect ratio, rounded', () => {
    expect(planSize(640, 427, size(1920, null))).toEqual({
      width: 1920,
      height: 1281,
      resize: 'fill',
      before: { width: 1920, height: 1281 },
    });
    expect(planSize(640, 427, size(null, 1000))).toMatchObject({ width: 1499, height: 1000, resize: 'fill' });
    expect(planSize(3000, 1, size(100, null))).toMatchObject({ width: 100, height: 1 });
  });

  it('within: the largest size inside both sides, aspect kept', () => {
    expect(planSize(640, 480, size(1600, 1600))).toMatchObject({ width: 1600, height: 1200, resize: 'fill' });
    expect(planSize(480, 640, size(1600, 1600))).toMatchObject({ width: 1200, height: 1600 });
    expect(planSize(640, 480, size(2000, 1000))).toMatchObject({ width: 1333, height: 1000 });
  });

  it('cover: exactly the box; the upscale is resized to cover it, then cropped', () => {
    expect(planSize(640, 480, size(1600, 1600, 'cover'))).toEqual({
      width: 1600,
      height: 1600,
      resize: 'cover',
      before: { width: 2133, height: 1600 },
    });
  });

  it('exact: exactly the box, stretched', () => {
    expect(planSize(640, 480, size(1000, 1000, 'exact'))).toEqual({
      width: 1000,
      height: 1000,
      resize: 'fill',
      before: { width: 1000, height: 1000 },
    });
  });

  it.each([
    // [source, request, target]
    [[500, 400], size(1000, null), '2k'],
    [[500, 400], size(1001, null), '3k'],
    [[500, 400], size(1500, 1200), '3k'],
    [[500, 400], size(1501, null), '4k'],
    [[500, 400], size(2000, null), '4k'],
    [[500, 400], size(2001, null), null],
    [[500, 400], size(100, null), '2k'],
    [[500, 400], size(1000, 1000, 'cover'), '3k'], // covers 1250 x 1000
    [[500, 400], size(1000, 1000, 'exact'), '3k'], // 1000 tall needs 2.5x
    [[500, 400], size(1000, 1000, 'within'), '2k'], // 1000 x 800
  ] as const)('source %j, request %j: target %s', ([w, h], request, target) => {
    expect(smallestTargetReaching(w, h, planSize(w, h, request))).toBe(target);
  });

  it('targetForSize: the smallest reaching target when the engine accepts it, otherwise the numbers in the refusal', () => {
    expect(targetForSize(500, 400, size(1200, null), ['2k', '3k', '4k']).target).toBe('3k');
    expect(() => targetForSize(500, 400, size(2001, null), ['2k', '3k', '4k'])).toThrow(
      expect.objectContaining({
        code: 'size_out_of_reach',
        message: '2001x1601 needs more than 4x this 500x400 image; 4k, the largest target, gives 2000x1600.',
      }),
    );
    expect(() => targetForSize(500, 400, size(1600, null), ['2k', '3k'])).toThrow(
      expect.objectContaining({
        code: 'image_too_large_to_upscale',
        message:
          '1600x1280 needs the 4k target, which exceeds the output pixel limit for this 500x400 image; the largest it accepts, 3k, gives 1500x1200.',
      }),
    );
  });
});
