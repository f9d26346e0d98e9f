import { DomainError, SCALE_OF_TARGET, TARGETS, type RequestedSize, type Target } from '@upscaler/contracts';

/** The result's pixel size for a size request, and how the upscaled image is brought to it. */
export interface PlannedSize {
  width: number;
  height: number;
  /**
   * fill: resized to width x height (within, one side, exact); cover: resized keeping its aspect until it covers
   * width x height, then the overflow is cropped evenly from both sides.
   */
  resize: 'fill' | 'cover';
  /** The size the upscaled image is resized to before any crop: the size a target has to reach. */
  before: { width: number; height: number };
}

/**
 * Output by pixel size (docs/api.md "Output by pixel size"): the result's size for a source of `width` x `height`
 * (oriented) and a request. One side given: the other follows the aspect ratio, rounded, at least 1. Both: `fit`.
 */
export function planSize(width: number, height: number, size: RequestedSize): PlannedSize {
  const W = size.width;
  const H = size.height;
  const side = (n: number) => Math.max(1, Math.round(n));
  if (W !== null && H === null) return fill(W, side((height * W) / width));
  if (H !== null && W === null) return fill(side((width * H) / height), H);
  if (W === null || H === null) throw new Error('a size request names a width, a height or both');
  switch (size.fit) {
    case 'exact':
      return fill(W, H);
    case 'within': {
      const s = Math.min(W / width, H / height);
      return fill(Math.min(W, side(width * s)), Math.min(H, side(height * s)));
    }
    case 'cover': {
      const s = Math.max(W / width, H / height);
      return {
        width: W,
        height: H,
        resize: 'cover',
        before: { width: Math.max(W, side(width * s)), height: Math.max(H, side(height * s)) },
      };
    }
  }
}

function fill(width: number, height: number): PlannedSize {
  return { width, height, resize: 'fill', before: { width, height } };
}

/**
 * The smallest target whose upscale of a `width` x `height` source reaches the planned size on both sides (so the
 * last step only ever scales down), or null when even 4k falls short. A result smaller than the source gets 2k.
 */
export function smallestTargetReaching(width: number, height: number, planned: PlannedSize): Target | null {
  for (const t of TARGETS) {
    const m = SCALE_OF_TARGET[t];
    if (width * m >= planned.before.width && height * m >= planned.before.height) return t;
  }
  return null;
}

/**
 * The target a size request runs (and is charged for): the smallest that reaches the planned size, when the engine
 * accepts it for this image (`accepted`: its targets for this image, format and tier). Unlike a requested target, a
 * size is not met by falling back to a smaller target: the request is refused with the numbers instead.
 */
export function targetForSize(
  width: number,
  height: number,
  size: RequestedSize,
  accepted: readonly Target[],
): { target: Target; planned: PlannedSize } {
  const planned = planSize(width, height, size);
  const target = smallestTargetReaching(width, height, planned);
  const asked = `${planned.before.width}x${planned.before.height}`;
  if (target === null) {
    throw new DomainError(
      'size_out_of_reach',
      `${asked} needs more than 4x this ${width}x${height} image; 4k, the largest target, gives ${width * 4}x${height * 4}.`,
    );
  }
  if (!accepted.includes(target)) {
    const largest = [...accepted].sort((a, b) => SCALE_OF_TARGET[b] - SCALE_OF_TARGET[a])[0];
    const offer = largest
      ? `; the largest it accepts, ${largest}, gives ${width * SCALE_OF_TARGET[largest]}x${height * SCALE_OF_TARGET[largest]}`
      : '';
    throw new DomainError(
      'image_too_large_to_upscale',
      `${asked} needs the ${target} target, which exceeds the output pixel limit for this ${width}x${height} image${offer}.`,
    );
  }
  return { target, planned };
}
