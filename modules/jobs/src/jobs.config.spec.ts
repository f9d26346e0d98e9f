import { configSection, loadConfig } from '@upscaler/config';
import { jobsConfig } from './jobs.config';

const read = (env: NodeJS.ProcessEnv) => configSection(loadConfig(env, [jobsConfig]), jobsConfig);

describe('job settings (README.md "Configuration")', () => {
  it('defaults: 50 MP input, the engine limit on output, the registry picks the tier and every core runs it', () => {
    expect(read({})).toEqual({
      maxInputPixels: 50_000_000,
      maxOutputPixels: undefined,
      defaultQuality: undefined,
      engine: { threads: 0, registry: undefined, precision: 'auto', modelsDir: undefined },
      retryDelayMs: 2000,
      leaseMs: 30_000,
      fileRetentionSeconds: undefined,
      accountMaxConcurrentJobs: 0,
    });
  });

  it('reads each variable; the registry and models folder as absolute paths (the processor hands them to the engine)', () => {
    const s = read({
      UPSCALE_MAX_INPUT_PIXELS: '4000000',
      UPSCALE_MAX_OUTPUT_PIXELS: '1000000',
      UPSCALE_DEFAULT_QUALITY: 'balanced',
      UPSCALE_ENGINE_THREADS: '2',
      UPSCALE_ENGINE_REGISTRY: 'training/exports/registry.json',
      UPSCALE_ENGINE_PRECISION: 'float32',
      UPSCALE_MODELS_DIR: '/srv/models',
      UPSCALE_RETRY_DELAY_MS: '0',
      UPSCALE_LEASE_MS: '5000',
      UPSCALE_FILE_RETENTION: '30d',
      UPSCALE_ACCOUNT_MAX_CONCURRENT_JOBS: '3',
    });
    expect([s.engine.registry?.startsWith('/'), s.engine.registry?.endsWith('/training/exports/registry.json')]).toEqual([true, true]);
    expect({ ...s, engine: { ...s.engine, registry: 'checked above' } }).toEqual({
      maxInputPixels: 4_000_000,
      maxOutputPixels: 1_000_000,
      defaultQuality: 'balanced',
      engine: { threads: 2, registry: 'checked above', precision: 'float32', modelsDir: '/srv/models' },
      retryDelayMs: 0,
      leaseMs: 5000,
      fileRetentionSeconds: 2_592_000,
      accountMaxConcurrentJobs: 3,
    });
  });

  it('UPSCALE_FILE_RETENTION: a duration in s, m, h or d; unset, 0 or forever keeps files', () => {
    const seconds = (v: string | undefined) => read({ UPSCALE_FILE_RETENTION: v }).fileRetentionSeconds;
    expect([seconds(undefined), seconds(''), seconds('0'), seconds('forever'), seconds('Forever')]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect([seconds('45s'), seconds('90m'), seconds('12h'), seconds('30d'), seconds(' 7 D ')]).toEqual([
      45, 5400, 43_200, 2_592_000, 604_800,
    ]);
    for (const bad of ['30', '1w', '-1d', '1.5h', 'soon', '0s']) {
      expect(() => read({ UPSCALE_FILE_RETENTION: bad })).toThrow(
        expect.objectContaining({ problems: ['UPSCALE_FILE_RETENTION: must be a duration such as 30d, 12h, 90m or 45s (or forever)'] }),
      );
    }
  });

  it('stops at start-up on a bad value, naming the variable, with the process-wide problems in the same error', () => {
    expect(() => read({ UPSCALE_ENGINE_PRECISION: 'fp16' })).toThrow(/UPSCALE_ENGINE_PRECISION: /);
    expect(() => read({ UPSCALE_DEFAULT_QUALITY: 'sharp' })).toThrow(/UPSCALE_DEFAULT_QUALITY: /);
    expect(() => read({ UPSCALE_MAX_OUTPUT_PIXELS: '0' })).toThrow(/UPSCALE_MAX_OUTPUT_PIXELS: must be a positive integer/);
    expect(() => read({ UPSCALE_LEASE_MS: '999' })).toThrow(/UPSCALE_LEASE_MS: must be an integer from 1000 to 3600000/);
    expect(() => read({ PORT: 'eighty', UPSCALE_ACCOUNT_MAX_CONCURRENT_JOBS: '-1' })).toThrow(
      /PORT: must be an integer[\s\S]*UPSCALE_ACCOUNT_MAX_CONCURRENT_JOBS: must be an integer from 0 to 1000/,
    );
  });
});
