import type { ContentHint, InputFormat, QualityTier } from '@upscaler/contracts';
import type { NetworkRegistry } from './network-registry';

/**
 * What the choice of network depends on besides tier and scale: the job's content hint, the input's format and,
 * for JPEG, its quality.
 */
export interface InputTraits {
  format: InputFormat;
  /** Estimated IJG quality of a JPEG input (image/jpeg-quality.ts); undefined when unknown or not a JPEG. */
  jpegQuality?: number;
  /** The job's content hint; default photo. */
  content?: ContentHint;
}

/**
 * The network id for a tier at a scale (docs/design.md §7): for an illustration, the tier's illustration network
 * where the registry lists one (docs/engine.md, "The content hint"); otherwise the tier's own network, or its JPEG
 * variant when the input is a JPEG saved at or below the variant's quality bound. Pure; undefined when the registry
 * has no network there.
 */
export function selectNetwork(registry: NetworkRegistry, quality: QualityTier, scale: number, input: InputTraits): string | undefined {
  const illustration = input.content === 'illustration' ? registry.illustration?.[quality]?.[scale] : undefined;
  if (illustration) return illustration;
  const variant = registry.jpegVariants?.[quality]?.[scale];
  if (variant && input.format === 'jpeg' && input.jpegQuality !== undefined && input.jpegQuality <= variant.maxJpegQuality) {
    return variant.network;
  }
  return registry.tiers[quality]?.[scale];
}

/**
 * The largest input a tier takes at any target for this content (registry `maxInputPixels`: the illustration networks
 * of the sharp tier), or undefined when only the output limit applies. Every network the tier may run for the hint,
 * whatever the input's format or JPEG quality, so that the limit is known from the request and the image's size
 * alone. Pure.
 */
export function tierMaxInputPixels(registry: NetworkRegistry, quality: QualityTier, content: ContentHint = 'photo'): number | undefined {
  const scales = new Set(
    [registry.tiers[quality], registry.illustration?.[quality], registry.jpegVariants?.[quality]].flatMap((byScale) =>
      Object.keys(byScale ?? {}).map(Number),
    ),
  );
  // At each scale: the network for any input but a JPEG, and the one for the most compressed JPEG (its variant, if any).
  const ids = [...scales].flatMap((scale) =>
    (['png', 'jpeg'] as const).map((format) => selectNetwork(registry, quality, scale, { format, jpegQuality: 0, content })),
  );
  const limits = ids.map((id) => (id ? registry.networks[id]?.maxInputPixels : undefined)).filter((v): v is number => v !== undefined);
  return limits.length > 0 ? Math.min(...limits) : undefined;
}
