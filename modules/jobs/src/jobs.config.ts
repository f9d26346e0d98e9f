import { resolve } from 'node:path';
import { z } from 'zod';
import { settingsProvider } from '@upscaler/runtime';
import { defineConfigSection, int, optionalDuration, optionalString } from '@upscaler/config';

/** The jobs' settings (README.md "Configuration", docs/operations.md), read with the rest at start-up. */
export interface JobSettings {
  /** Header pixel limit against decompression bombs (refused before decoding). */
  maxInputPixels: number;
  /** Output pixel limit (UPSCALE_MAX_OUTPUT_PIXELS); undefined: the engine's default. */
  maxOutputPixels: number | undefined;
  /** The tier a request without `quality` gets; undefined: the registry's. */
  defaultQuality: 'fast' | 'balanced' | 'best' | undefined;
  engine: {
    /** Inference threads; 0: every core. */
    threads: number;
    /** JSON file replacing the engine's network registry (docs/engine.md); undefined: the built-in one. */
    registry: string | undefined;
    /** Which networks run: int8 where the CPU has VNNI (auto), always their float32 parents, or int8 everywhere (docs/engine.md). */
    precision: 'auto' | 'float32' | 'int8';
    /** Folder of the ONNX networks; undefined: the repository's models/. */
    modelsDir: string | undefined;
  };
  /** Delay before a failed attempt's retry, doubled per attempt. */
  retryDelayMs: number;
  /** How long a processor's claim on a job lasts without renewal (renewed every third of it while the engine runs). */
  leaseMs: number;
  /**
   * How long a job's source and result are kept after it is final (UPSCALE_FILE_RETENTION), in seconds; undefined:
   * kept until an operator deletes them (docs/operations.md "Retention").
   */
  fileRetentionSeconds: number | undefined;
  /** Default per-account limit on jobs running at once across all processors (0: no limit). */
  accountMaxConcurrentJobs: number;
}

export const jobsConfig = defineConfigSection(
  'jobs',
  {
    UPSCALE_MAX_INPUT_PIXELS: int(50_000_000, 1),
    UPSCALE_MAX_OUTPUT_PIXELS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined || v === '') return undefined;
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a positive integer' });
          return z.NEVER;
        }
        return n;
      }),
    UPSCALE_DEFAULT_QUALITY: z.enum(['fast', 'balanced', 'best']).optional(),
    UPSCALE_ENGINE_THREADS: int(0, 0, 256),
    UPSCALE_ENGINE_REGISTRY: optionalString,
    UPSCALE_ENGINE_PRECISION: z.enum(['auto', 'float32', 'int8']).default('auto'),
    UPSCALE_MODELS_DIR: optionalString,
    UPSCALE_RETRY_DELAY_MS: int(2000, 0),
    UPSCALE_LEASE_MS: int(30_000, 1000, 3_600_000),
    UPSCALE_FILE_RETENTION: optionalDuration,
    UPSCALE_ACCOUNT_MAX_CONCURRENT_JOBS: int(0, 0, 1000),
  },
  (e): JobSettings => ({
    maxInputPixels: e.UPSCALE_MAX_INPUT_PIXELS,
    maxOutputPixels: e.UPSCALE_MAX_OUTPUT_PIXELS,
    defaultQuality: e.UPSCALE_DEFAULT_QUALITY,
    engine: {
      threads: e.UPSCALE_ENGINE_THREADS,
      registry: e.UPSCALE_ENGINE_REGISTRY ? resolve(e.UPSCALE_ENGINE_REGISTRY) : undefined,
      precision: e.UPSCALE_ENGINE_PRECISION,
      modelsDir: e.UPSCALE_MODELS_DIR ? resolve(e.UPSCALE_MODELS_DIR) : undefined,
    },
    retryDelayMs: e.UPSCALE_RETRY_DELAY_MS,
    leaseMs: e.UPSCALE_LEASE_MS,
    fileRetentionSeconds: e.UPSCALE_FILE_RETENTION,
    accountMaxConcurrentJobs: e.UPSCALE_ACCOUNT_MAX_CONCURRENT_JOBS,
  }),
);

export const JOB_SETTINGS = Symbol('JOB_SETTINGS');

/** The jobs' settings for the module's classes, from the config the runtime read. */
export const jobSettingsProvider = settingsProvider(JOB_SETTINGS, jobsConfig);
