import type { Target } from '@upscaler/contracts';
import { chooseTarget, creditsFor } from './target-policy';

describe('pricing and target fallback (spec 1, output size)', () => {
  it('credits: 2k costs 3, 3k costs 6, 4k costs 9', () => {
    expect([creditsFor('2k'), creditsFor('3k'), creditsFor('4k')]).toEqual([3, 6, 9]);
  });

  it.each<[Target, Target[], Target | null]>([
    ['4k', ['2k', '3k', '4k'], '4k'],
    ['2k', ['2k', '3k', '4k'], '2k'],
    ['3k', ['3k', '2k'], '3k'],
    ['4k', ['2k', '3k'], '3k'],
    ['4k', ['3k', '2k'], '3k'],
    ['4k', ['2k'], '2k'],
    ['3k', ['2k'], '2k'],
    ['2k', [], null],
    ['4k', [], null],
  ])('requested %s, engine accepts %j -> %s', (requested, accepted, expected) => {
    expect(chooseTarget(requested, accepted)).toBe(expected);
  });
});
