import { Inject, Injectable } from '@nestjs/common';
import { SCALE_OF_TARGET, type ContentHint, type OutputFormat, type QualityTier, type Target } from '@upscaler/contracts';
import {
  acceptedTargets,
  makeThumbnail,
  DEFAULT_MAX_OUTPUT_PIXELS,
  probeImage,
  readRegistry,
  tierMaxInputPixels,
  MAX_OUTPUT_SIDE,
  type ImageProbe,
  type Thumbnail,
  type NetworkRegistry,
} from '@upscaler/engine';
import { JOB_SETTINGS, type JobSettings } from '../jobs.config';

/**
 * What the api asks of the engine at submit time, without loading any network: the format sniffed
 * from the bytes, header-level checks (bombs, animation) and the targets the engine accepts for
 * this image and output format (spec 1: the fallback rule is applied at submit, docs/design.md §4).
 */
@Injectable()
export class ImageInspector {
  /** The tier a request without `quality` gets: UPSCALE_DEFAULT_QUALITY, else the registry's (file or built-in). */
  private readonly defaultTier: QualityTier;
  private readonly registry: NetworkRegistry;

  constructor(@Inject(JOB_SETTINGS) private readonly settings: JobSettings) {
    this.registry = readRegistry(settings.engine.registry);
    this.defaultTier = settings.defaultQuality ?? this.registry.defaultQuality;
  }

  probe(bytes: Buffer): Promise<ImageProbe> {
    return probeImage(bytes, this.settings.maxInputPixels);
  }

  /** The job list's WebP thumbnail of an accepted image (null where the decoder gives up: the job reports that). */
  thumbnail(bytes: Buffer): Promise<Thumbnail | null> {
    return makeThumbnail(bytes, this.settings.maxInputPixels);
  }

  /**
   * Output pixel limit, the input limit of the networks the tier runs for the content (sharp for an illustration), plus
   * the output format's longest side (MAX_OUTPUT_SIDE: WebP 16,383, AVIF 16,384, JPEG 65,500 pixels).
   */
  acceptedTargets(
    width: number,
    height: number,
    format: OutputFormat,
    quality: QualityTier = this.defaultTier,
    content: ContentHint = 'photo',
  ): Target[] {
    const maxIn = this.tierInputBound(quality, content);
    const byPixels = acceptedTargets(width, height, this.settings.maxOutputPixels ?? DEFAULT_MAX_OUTPUT_PIXELS, maxIn);
    return byPixels.filter((t) => Math.max(width, height) * SCALE_OF_TARGET[t] <= MAX_OUTPUT_SIDE[format]);
  }

  /** The input bound of the networks a tier runs for the content (the sharp tier's), or undefined where it has none. */
  tierInputBound(quality: QualityTier = this.defaultTier, content: ContentHint = 'photo'): number | undefined {
    return tierMaxInputPixels(this.registry, quality, content);
  }

  defaultQuality(): QualityTier {
    return this.defaultTier;
  }
}
