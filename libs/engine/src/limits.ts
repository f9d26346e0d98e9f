import { SCALE_OF_TARGET, TARGETS, type QualityTier, type Target } from '@upscaler/contracts';

/**
 * Default output pixel limit (UPSCALE_MAX_OUTPUT_PIXELS): 2^27 = 134,217,728 pixels (128 Mi, e.g. 11585 x 11585).
 * Chosen so that any input up to 33.5 MP is accepted at 2k (a 25 MP camera image, 6144 x 4096, gives 100.7 MP)
 * while 3k of the same image (226 MP) is refused; the output raster stays below 512 MB even with alpha, which is
 * what bounds the engine's memory (docs/engine.md, "Memory").
 */
export const DEFAULT_MAX_OUTPUT_PIXELS = 2 ** 27;

/**
 * Default input pixel limit: headers announcing more pixels are refused before decoding as
 * image_dimensions_too_large (decompression bombs). 50 MP leaves room above what 2k accepts so that a merely
 * too-large photo gets the clearer image_too_large_to_upscale from the refusal rule instead.
 */
export const DEFAULT_MAX_INPUT_PIXELS = 50_000_000;

/**
 * Spec 1, refusal rule: the targets whose output (w*s x h*s) stays within maxOutputPixels, ascending; none when the
 * input has more than `maxInputPixels` (a tier's own bound: sharp, registry `maxInputPixels`).
 */
export function acceptedTargets(width: number, height: number, maxOutputPixels: number, maxInputPixels = Infinity): Target[] {
  if (!(width > 0 && height > 0) || width * height > maxInputPixels) return [];
  return TARGETS.filter((t) => width * height * SCALE_OF_TARGET[t] ** 2 <= maxOutputPixels);
}

/** The message of an image_too_large_to_upscale refusal by a tier's own input bound (the api's and the engine's). */
export function tierInputBoundMessage(quality: QualityTier, maxInputPixels: number): string {
  return `The image is too large for the ${quality} tier: it takes at most ${maxInputPixels.toLocaleString('en-US')} input pixels.`;
}
