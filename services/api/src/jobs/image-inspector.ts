import { Inject, Injectable } from '@nestjs/common';
import type { QualityTier, Target } from '@upscaler/contracts';
import { acceptedTargetsFor, DEFAULT_MAX_OUTPUT_PIXELS, DEFAULT_QUALITY, probeImage, type ImageProbe } from '@upscaler/engine';
import { RUNTIME, type Runtime } from '@upscaler/runtime';

/**
 * What the api asks of the engine at submit time, without loading any network: the format sniffed
 * from the bytes, header-level checks (bombs, animation) and the targets the engine would accept
 * (spec 1: the fallback rule is applied at submit, DESIGN 4).
 */
@Injectable()
export class ImageInspector {
  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

  probe(bytes: Buffer): Promise<ImageProbe> {
    return probeImage(bytes);
  }

  acceptedTargets(width: number, height: number): Target[] {
    return acceptedTargetsFor(width, height, this.rt.config.maxOutputPixels ?? DEFAULT_MAX_OUTPUT_PIXELS);
  }

  defaultQuality(): QualityTier {
    return this.rt.config.defaultQuality ?? DEFAULT_QUALITY;
  }
}
