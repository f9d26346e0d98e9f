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
 * The largest input a tier takes at any target (registry `maxInputPixels`: the sharp tier's bound), or undefined
 * when only the output limit applies. Pure.
 */
export function tierMaxInputPixels(registry: NetworkRegistry, quality: QualityTier): number | undefined {
  // Every network the tier may run, whatever the input or content: the limit does not depend on the hint.
  const ids = [
    ...Object.values(registry.tiers[quality] ?? {}),
    ...Object.values(registry.jpegVariants?.[quality] ?? {}).map((v) => v.network),
    ...Object.values(registry.illustration?.[quality] ?? {}),
  ];
  const limits = ids.map((id) => registry.networks[id]?.maxInputPixels).filter((v): v is number => v !== undefined);
  return limits.length > 0 ? Math.min(...limits) : undefined;
}
