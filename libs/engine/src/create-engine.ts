import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import {
  CONTENT_TYPE_OF_FORMAT,
  QUALITY_TIERS,
  SCALE_OF_TARGET,
  type ContentHint,
  type QualityTier,
  type Target,
} from '@upscaler/contracts';
import { EngineError } from './engine-errors';
import type { ImageProbe, UpscaleEngine, UpscaleRequest, UpscaleResult } from './engine.port';
import { MAX_OUTPUT_SIDE } from './image/encode-image';
import { estimateJpegQuality } from './image/jpeg-quality';
import { probeImage } from './image/probe-image';
import { InferenceClient } from './inference/inference-client';
import { ensembleTransforms } from './inference/dihedral';
import { acceptedTargets, DEFAULT_MAX_INPUT_PIXELS, DEFAULT_MAX_OUTPUT_PIXELS, tierInputBoundMessage } from './limits';
import { defaultModelsDir, readRegistry, resolveRegistry, withDefaultTiers } from './registry/load-registry';
import type { NetworkRegistry } from './registry/network-registry';
import { effectivePrecision, hasInt8DotProduct, networkAtPrecision, PRECISION_SETTINGS, type PrecisionSetting } from './registry/precision';
import { selectNetwork, tierMaxInputPixels } from './registry/select-network';

export interface EngineOptions {
  /** Folder of the converted ONNX files (default: the repository's models/, or UPSCALE_MODELS_DIR). */
  modelsDir?: string;
  /** UPSCALE_MAX_OUTPUT_PIXELS: a target whose output has more pixels is refused (spec 1). */
  maxOutputPixels?: number;
  /** Header pixel limit against decompression bombs (UPSCALE_MAX_INPUT_PIXELS). */
  maxInputPixels?: number;
  /** ONNX Runtime intra-op threads (UPSCALE_ENGINE_THREADS); default: every core. */
  threads?: number;
  /** Default tier when a request names none (UPSCALE_DEFAULT_QUALITY); default: the registry's. */
  defaultQuality?: QualityTier;
  /** A registry object, or the path of a JSON file of the same shape (UPSCALE_ENGINE_REGISTRY). */
  registry?: NetworkRegistry | string;
  /**
   * UPSCALE_ENGINE_PRECISION: `auto` (default) runs the registry's int8 networks where the CPU has an int8
   * dot-product instruction, `float32` always runs their float32 parents, `int8` runs them on any CPU.
   */
  precision?: PrecisionSetting;
}

/**
 * Whether this machine's CPU has an int8 dot product (precision.ts), read from /proc/cpuinfo where there is one
 * (Linux); elsewhere no flags are known and `auto` runs float32.
 */
export function hostHasInt8DotProduct(): boolean {
  return existsSync('/proc/cpuinfo') && hasInt8DotProduct(readFileSync('/proc/cpuinfo', 'utf8'));
}

function positiveInt(name: string, v: number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v <= 0) throw new Error(`engine: ${name} must be a positive integer, got ${v}`);
  return v;
}

export async function createEngine(options: EngineOptions = {}): Promise<UpscaleEngine> {
  const maxOutputPixels = positiveInt('maxOutputPixels', options.maxOutputPixels, DEFAULT_MAX_OUTPUT_PIXELS);
  const maxInputPixels = positiveInt('maxInputPixels', options.maxInputPixels, DEFAULT_MAX_INPUT_PIXELS);
  const threads = positiveInt('threads', options.threads, availableParallelism());
  const registry = typeof options.registry === 'object' ? withDefaultTiers(options.registry) : readRegistry(options.registry);
  const networks = resolveRegistry(registry, options.modelsDir ?? defaultModelsDir());
  const defaultQuality = options.defaultQuality ?? registry.defaultQuality;
  if (!QUALITY_TIERS.includes(defaultQuality)) throw new Error(`engine: unknown default quality ${defaultQuality}`);
  const setting = options.precision ?? 'auto';
  if (!PRECISION_SETTINGS.includes(setting))
    throw new Error(`engine: precision must be one of ${PRECISION_SETTINGS.join(', ')}, got ${setting}`);
  const precision = effectivePrecision(setting, setting === 'auto' && hostHasInt8DotProduct());
  const client = new InferenceClient({ threads });

  const tiers = Object.fromEntries(
    QUALITY_TIERS.map((q) => [
      q,
      Object.fromEntries(Object.entries(registry.tiers[q]).map(([s, id]) => [s, networkAtPrecision(registry, id, precision)])),
    ]),
  ) as Record<QualityTier, Record<number, string>>;
  const illustration = Object.fromEntries(
    Object.entries(registry.illustration ?? {}).map(([q, byScale]) => [
      q,
      Object.fromEntries(Object.entries(byScale ?? {}).map(([s, id]) => [s, networkAtPrecision(registry, id, precision)])),
    ]),
  ) as Partial<Record<QualityTier, Record<number, string>>>;

  return {
    probe: (input: Buffer): Promise<ImageProbe> => probeImage(input, maxInputPixels),

    acceptedTargets: (width: number, height: number, quality?: QualityTier, content?: ContentHint): Target[] =>
      acceptedTargets(width, height, maxOutputPixels, tierMaxInputPixels(registry, quality ?? defaultQuality, content)),

    async upscale(req: UpscaleRequest): Promise<UpscaleResult> {
      const probe = await probeImage(req.input, maxInputPixels);
      const scale = SCALE_OF_TARGET[req.target];
      if (!scale) throw new EngineError('invalid_target');
      // Spec 1, refusal rule: the caller falls back to an accepted target; the engine never exceeds the limit.
      if (!acceptedTargets(probe.width, probe.height, maxOutputPixels).includes(req.target)) {
        throw new EngineError('image_too_large_to_upscale', undefined, {
          width: probe.width,
          height: probe.height,
          target: req.target,
          maxOutputPixels,
        });
      }
      const maxSide = MAX_OUTPUT_SIDE[req.format];
      if (Math.max(probe.width, probe.height) * scale > maxSide) {
        throw new EngineError('engine_error', `${req.format.toUpperCase()} output cannot exceed ${maxSide} pixels per side.`);
      }
      const quality = req.quality ?? defaultQuality;
      const jpegQuality = probe.format === 'jpeg' ? estimateJpegQuality(req.input) : undefined;
      const listed = selectNetwork(registry, quality, scale, { format: probe.format, jpegQuality, content: req.content });
      const id = listed && networkAtPrecision(registry, listed, precision);
      const net = id ? networks.get(id) : undefined;
      if (!net) throw new EngineError('engine_error', `no network for quality ${quality} at x${scale}`);
      // A tier's own input limit (registry maxInputPixels: sharp), on top of the output limit above.
      if (net.maxInputPixels !== undefined && probe.width * probe.height > net.maxInputPixels) {
        throw new EngineError('image_too_large_to_upscale', tierInputBoundMessage(quality, net.maxInputPixels), {
          width: probe.width,
          height: probe.height,
          target: req.target,
          quality,
          maxInputPixels: net.maxInputPixels,
        });
      }
      const r = await client.run(
        {
          input: req.input,
          format: req.format,
          maxInputPixels,
          size: req.size,
          network: {
            id: net.id,
            path: net.path,
            scale: net.scale,
            receptiveRadius: net.receptiveRadius,
            tile: net.tile,
            selfEnsemble: ensembleTransforms(net.selfEnsemble),
            tailRadius: net.tailRadius,
            outscale: net.outscale,
          },
        },
        req.signal,
        req.onProgress && ((done: number, total: number) => req.onProgress!(done / total, done, total)),
      );
      return {
        output: Buffer.from(r.output.buffer, r.output.byteOffset, r.output.byteLength),
        contentType: CONTENT_TYPE_OF_FORMAT[req.format],
        width: r.width,
        height: r.height,
        network: net.id,
        scale,
        tiles: r.tiles,
        engineMs: r.engineMs,
      };
    },

    describe: () => ({ defaultQuality, maxOutputPixels, tiers, illustration, precision }),

    close: () => client.close(),
  };
}
