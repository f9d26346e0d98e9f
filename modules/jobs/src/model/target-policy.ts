import { CREDITS_OF_TARGET, SCALE_OF_TARGET, type Target } from '@upscaler/contracts';

/** Spec 1, output size table: 2k costs 3 credits, 3k 6, 4k 9. */
export function creditsFor(target: Target): number {
  return CREDITS_OF_TARGET[target];
}

/**
 * Spec 1, output size rule: when the engine refuses the requested target for an image, the service
 * falls back to the largest target the engine accepts for it. `accepted` is what the engine accepts
 * for this image (any order). Null when it accepts none: the api then answers
 * `image_too_large_to_upscale` (docs/design.md §4, engine refusal).
 *
 * The engine refuses by output pixel count, so acceptance is monotone (if 4k is accepted, so are 3k
 * and 2k) and the fallback can only go down, never to a dearer target than the one requested.
 */
export function chooseTarget(requested: Target, accepted: readonly Target[]): Target | null {
  if (accepted.includes(requested)) return requested;
  let largest: Target | null = null;
  for (const t of accepted) if (largest === null || SCALE_OF_TARGET[t] > SCALE_OF_TARGET[largest]) largest = t;
  return largest;
}
