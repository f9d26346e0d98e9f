import type { ContentHint, InputFormat, OutputFormat, QualityTier, Target } from '@upscaler/contracts';
import type { Precision } from './registry/precision';
import type { OutputSize } from './image/resize-to-size';

export type { OutputSize } from './image/resize-to-size';

/** What the engine learns from the header without decoding pixels (cheap; used at submit time). */
export interface ImageProbe {
  format: InputFormat;
  width: number;
  /** Dimensions after EXIF orientation is applied. */
  height: number;
  channels: number;
  hasAlpha: boolean;
  animated: boolean;
}

export interface UpscaleRequest {
  input: Buffer;
  target: Target;
  format: OutputFormat;
  quality: QualityTier;
  /**
   * The content hint: illustration runs the tier's illustration network where the registry lists one
   * (docs/engine.md, "The content hint"). Default photo.
   */
  content?: ContentHint;
  /**
   * The size the result is resized to after the upscale (output by pixel size; the target must reach it): Lanczos-3,
   * cover crops the overflow evenly. Absent: the result is the target's multiple of the input.
   */
  size?: OutputSize;
  /** Aborting stops the job between tiles with `EngineCancelledError`. */
  signal?: AbortSignal;
  /**
   * Hears the share of tiles through the network so far (0 < fraction <= 1), after each tile: the job's progress.
   * Decoding comes before the first call; alpha and encoding after the last.
   */
  onProgress?: (fraction: number, tilesDone: number, tilesTotal: number) => void;
}

export interface UpscaleResult {
  output: Buffer;
  contentType: string;
  width: number;
  height: number;
  network: string;
  scale: number;
  tiles: number;
  engineMs: number;
}

export interface UpscaleEngine {
  /** Throws EngineError with code unsupported_media_type / animated_image / image_dimensions_too_large / invalid_image. */
  probe(input: Buffer): Promise<ImageProbe>;
  /**
   * The targets the engine accepts for these (oriented) dimensions, ascending (spec 1: refusal rule); where the networks
   * a tier runs for the content have an input limit (sharp for an illustration), none above it. `quality` defaults to
   * the engine's default tier, `content` to photo.
   */
  acceptedTargets(width: number, height: number, quality?: QualityTier, content?: ContentHint): Target[];
  upscale(req: UpscaleRequest): Promise<UpscaleResult>;
  /**
   * The default tier, the precision the engine runs at, the network each tier runs at each scale (at that
   * precision), and where an illustration runs another network.
   */
  describe(): {
    defaultQuality: QualityTier;
    maxOutputPixels: number;
    tiers: Record<QualityTier, Record<number, string>>;
    illustration: Partial<Record<QualityTier, Record<number, string>>>;
    precision: Precision;
  };
  close(): Promise<void>;
}
