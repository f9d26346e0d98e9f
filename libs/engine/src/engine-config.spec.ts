import { engineConfigFromEnv } from './engine-config';

describe('engineConfigFromEnv', () => {
  it('reads the engine variables', () => {
    expect(
      engineConfigFromEnv({
        UPSCALE_MAX_OUTPUT_PIXELS: '100_000_000',
        UPSCALE_MAX_INPUT_PIXELS: '40000000',
        UPSCALE_ENGINE_THREADS: '2',
        UPSCALE_DEFAULT_QUALITY: 'balanced',
        UPSCALE_MODELS_DIR: '/m',
        UPSCALE_ENGINE_REGISTRY: '/r.json',
      }),
    ).toEqual({ maxOutputPixels: 100_000_000, maxInputPixels: 40_000_000, threads: 2, defaultQuality: 'balanced', modelsDir: '/m', registry: '/r.json' });
  });

  it('leaves unset variables to the engine defaults', () => {
    expect(engineConfigFromEnv({})).toEqual({
      maxOutputPixels: undefined,
      maxInputPixels: undefined,
      threads: undefined,
      defaultQuality: undefined,
      modelsDir: undefined,
      registry: undefined,
    });
  });

  it('stops with a message naming the variable on a bad value', () => {
    expect(() => engineConfigFromEnv({ UPSCALE_MAX_OUTPUT_PIXELS: 'lots' })).toThrow(/UPSCALE_MAX_OUTPUT_PIXELS/);
    expect(() => engineConfigFromEnv({ UPSCALE_ENGINE_THREADS: '0' })).toThrow(/UPSCALE_ENGINE_THREADS/);
    expect(() => engineConfigFromEnv({ UPSCALE_DEFAULT_QUALITY: 'ultra' })).toThrow(/UPSCALE_DEFAULT_QUALITY/);
  });
});
