import { QUALITY_TIERS, type QualityTier } from '@upscaler/contracts';
import type { EngineOptions } from './create-engine';

export type EngineEnvConfig = EngineOptions;

/**
 * The engine's environment variables, parsed once at start-up (STYLE: a bad value stops the process with a
 * message that names the variable). docs/engine.md lists them with their defaults.
 */
export function engineConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EngineEnvConfig {
  const int = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const v = Number(raw.replace(/_/g, ''));
    if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
    return v;
  };
  const quality = env.UPSCALE_DEFAULT_QUALITY || undefined;
  if (quality !== undefined && !QUALITY_TIERS.includes(quality as QualityTier)) {
    throw new Error(`UPSCALE_DEFAULT_QUALITY must be one of ${QUALITY_TIERS.join(', ')}, got "${quality}"`);
  }
  return {
    maxOutputPixels: int('UPSCALE_MAX_OUTPUT_PIXELS'),
    maxInputPixels: int('UPSCALE_MAX_INPUT_PIXELS'),
    threads: int('UPSCALE_ENGINE_THREADS'),
    defaultQuality: quality as QualityTier | undefined,
    modelsDir: env.UPSCALE_MODELS_DIR || undefined,
    registry: env.UPSCALE_ENGINE_REGISTRY || undefined,
  };
}
