import type { InputFormat, QualityTier } from '@upscaler/contracts';
import type { NetworkRegistry } from './network-registry';

/** What the choice of network depends on besides tier and scale: the input's format and, for JPEG, its quality. */
export interface InputTraits {
  format: InputFormat;
  /** Estimated IJG quality of a JPEG input (image/jpeg-quality.ts); undefined when unknown or not a JPEG. */
  jpegQuality?: number;
}

/**
 * The network id for a tier at a scale (docs/design.md §7): the tier's own network, or its JPEG variant when the input is a
 * JPEG saved at or below the variant's quality bound. Pure; undefined when the registry has no network there.
 */
export function selectNetwork(registry: NetworkRegistry, quality: QualityTier, scale: number, input: InputTraits): string | undefined {
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
  const ids = [
    ...Object.values(registry.tiers[quality] ?? {}),
    ...Object.values(registry.jpegVariants?.[quality] ?? {}).map((v) => v.network),
  ];
  const limits = ids.map((id) => registry.networks[id]?.maxInputPixels).filter((v): v is number => v !== undefined);
  return limits.length > 0 ? Math.min(...limits) : undefined;
}
