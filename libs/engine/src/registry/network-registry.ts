import type { QualityTier } from '@upscaler/contracts';
import type { Precision } from './precision';

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
  /**
   * Geometric self-ensemble: every tile runs through the network eight times, rotated and mirrored, and the eight
   * outputs turned back are averaged (inference/dihedral.ts). Eight times the CPU for about +0.2 dB PSNR on
   * Set5 (docs/engine.md). The same ONNX file may be listed twice, with and without it. A list of transforms
   * (inference/dihedral.ts numbering: the identity first, two, four or eight in all) runs only those passes:
   * the `balanced` tier's two-pass ensemble at x4 spends what int8 saves on a second pass (docs/engine.md).
   */
  selfEnsemble?: boolean | number[];
  /**
   * The arithmetic the file runs in (default float32). An int8 file (QDQ: int8 weights per channel, uint8
   * activations; sr export-int8) was fine-tuned from a float32 network and scores within 0.03 dB of it
   * (its model card); it names that network in `float32`, which the engine runs instead when it runs float32
   * (precision.ts). Same scale, radius and tile as the parent.
   */
  precision?: Precision;
  /** For an int8 network: the registry id of its float32 parent. */
  float32?: string;
  /**
   * For an int8 network: the float32 network an engine that runs float32 runs in its place, when that is not the
   * parent. An int8 ensemble that spends int8's saved time on a second pass gives way to one float32 pass, not to
   * its float32 twin, which would cost twice what the tier cost before int8 (docs/engine.md, "Precision").
   * Same scale and outscale; default: `float32`.
   */
  atFloat32?: string;
  /**
   * The scale the job asks for when it is below the network's own (`scale`): the network runs at `scale` and its
   * output is resized down to `outscale` with Lanczos-3, as Real-ESRGAN does for 2x and 3x with its x4 network
   * (docs/engine.md, "The sharp tier"). Listed under the tier's `outscale`. Default: `scale`.
   */
  outscale?: number;
  /**
   * For a network whose graph takes the int64 input `crop` (scripts/convert-ncnn): the receptive radius of its
   * upsampling tail, in input pixels. The tile runner crops each tile's low-resolution features to the core plus
   * this radius before the tail runs, so a large halo (Real-ESRGAN's 349 pixels) costs only the body's work.
   */
  tailRadius?: number;
  /**
   * The largest input (width x height) this network takes: the tier refuses larger images at every target
   * (image_too_large_to_upscale), so that a job finishes within the reservation timeout on one processor.
   */
  maxInputPixels?: number;
  description?: string;
}

export interface NetworkRegistry {
  defaultQuality: QualityTier;
  networks: Record<string, NetworkEntry>;
  /** tier -> scale -> network id */
  tiers: Record<QualityTier, Record<number, string>>;
  /**
   * Optional networks for camera-like inputs (the photo variants, trained on JPEG-compressed, noisy,
   * slightly blurred images): tier -> scale -> variant. A JPEG input whose estimated quality
   * (image/jpeg-quality.ts) is at most `maxJpegQuality` runs `network` instead of the tier's own network;
   * every other input (PNG, WebP, AVIF, JPEGs saved at a higher quality) runs the tier's network.
   */
  jpegVariants?: Partial<Record<QualityTier, Record<number, JpegVariant>>>;
  /**
   * The networks a job with `content: illustration` runs: tier -> scale -> network id, listed only where
   * an illustration network measured better than the tier's own (docs/engine.md, "The content hint"). Where a tier
   * or scale is not listed, an illustration runs what a photo runs (the tier's network or its JPEG variant).
   */
  illustration?: Partial<Record<QualityTier, Record<number, string>>>;
}

export interface JpegVariant {
  network: string;
  maxJpegQuality: number;
}
