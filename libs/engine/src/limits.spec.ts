import { acceptedTargets, DEFAULT_MAX_INPUT_PIXELS, DEFAULT_MAX_OUTPUT_PIXELS } from './limits';

describe('acceptedTargets (spec 1: refusal rule)', () => {
  it('answers the targets whose output pixels stay within the limit, ascending', () => {
    expect(acceptedTargets(100, 100, 160_000)).toEqual(['2k', '3k', '4k']);
    expect(acceptedTargets(100, 100, 159_999)).toEqual(['2k', '3k']);
    expect(acceptedTargets(100, 100, 90_000)).toEqual(['2k', '3k']);
    expect(acceptedTargets(100, 100, 89_999)).toEqual(['2k']);
    expect(acceptedTargets(100, 100, 40_000)).toEqual(['2k']);
    expect(acceptedTargets(100, 100, 39_999)).toEqual([]);
  });

  it('by default accepts a 25 MP photo at 2k but not at 3k', () => {
    expect(acceptedTargets(6144, 4096, DEFAULT_MAX_OUTPUT_PIXELS)).toEqual(['2k']);
    expect(acceptedTargets(5000, 5000, DEFAULT_MAX_OUTPUT_PIXELS)).toEqual(['2k']);
    expect(acceptedTargets(4000, 3000, DEFAULT_MAX_OUTPUT_PIXELS)).toEqual(['2k', '3k']);
    expect(acceptedTargets(2000, 1500, DEFAULT_MAX_OUTPUT_PIXELS)).toEqual(['2k', '3k', '4k']);
    expect(DEFAULT_MAX_OUTPUT_PIXELS).toBe(134_217_728);
    expect(DEFAULT_MAX_INPUT_PIXELS).toBe(50_000_000);
  });

  it("accepts nothing above a tier's input limit, whatever the output limit (sharp)", () => {
    expect(acceptedTargets(316, 316, DEFAULT_MAX_OUTPUT_PIXELS, 100_000)).toEqual(['2k', '3k', '4k']);
    expect(acceptedTargets(317, 316, DEFAULT_MAX_OUTPUT_PIXELS, 100_000)).toEqual([]);
  });

  it('accepts nothing for empty dimensions', () => {
    expect(acceptedTargets(0, 10, DEFAULT_MAX_OUTPUT_PIXELS)).toEqual([]);
  });
});
