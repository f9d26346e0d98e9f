import { ImageInspector } from './image-inspector';
import { jobSettings } from '../../test/job-settings.fixture';

/**
 * Spec 1's fallback rule with every encoder's side limit, at submit: the largest target whose output fits the
 * format is taken, so no job fails in the encoder (a 4200x300 banner at 4k as AVIF used to run and fail).
 */
const inspector = new ImageInspector(jobSettings());

describe('accepted targets with the output format side limits', () => {
  test.each([
    // width x height, format: accepted targets (2k x2, 3k x3, 4k x4)
    [4200, 300, 'avif', ['2k', '3k']], // x4 = 16,800 > 16,384
    [4096, 300, 'avif', ['2k', '3k', '4k']], // x4 = 16,384: exactly the limit
    [5000, 300, 'webp', ['2k', '3k']], // x4 = 20,000 > 16,383
    [300, 5462, 'webp', ['2k']], // x3 = 16,386 > 16,383 (the height counts too)
    [16_400, 10, 'jpeg', ['2k', '3k']], // x4 = 65,600 > 65,500
    [16_400, 10, 'png', ['2k', '3k', '4k']],
  ] as const)('%i x %i as %s: %j', (width, height, format, targets) => {
    expect(inspector.acceptedTargets(width, height, format, 'fast')).toEqual(targets);
  });
});
