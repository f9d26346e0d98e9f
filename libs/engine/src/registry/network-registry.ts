import type { QualityTier } from '@upscaler/contracts';

/** One ONNX network: NCHW float32 RGB in, RGB out, both on the 0-255 scale, output = input x scale. */
export interface NetworkEntry {
  /** ONNX file, relative to the models folder (or absolute). */
  file: string;
  scale: number;
  /**
   * How far (in input pixels) an output pixel's inputs reach: the tile halo. Must be exact or larger, else tiled
   * output differs from full-frame output (libs/engine/test/tiling.int-spec.ts proves it per network).
   */
  receptiveRadius: number;
  /** Core tile edge in input pixels: bounds the inference memory (docs/engine.md, "Memory"). */
  tile: number;
  description?: string;
}

export interface NetworkRegistry {
  defaultQuality: QualityTier;
  networks: Record<string, NetworkEntry>;
  /** tier -> scale -> network id */
  tiers: Record<QualityTier, Record<number, string>>;
}
