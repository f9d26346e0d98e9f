import { QUALITY_TIERS } from '@upscaler/contracts';
import { DEFAULT_REGISTRY } from './default-registry';
import type { NetworkRegistry } from './network-registry';
import { selectNetwork, tierMaxInputPixels } from './select-network';

const entry = (scale: number) => ({ file: 'x.onnx', scale, receptiveRadius: 6, tile: 256 });
const registry: NetworkRegistry = {
  defaultQuality: 'fast',
  networks: {
    clean2: entry(2),
    photo2: entry(2),
    clean4: entry(4),
    b2: entry(2),
    s4: { ...entry(4), maxInputPixels: 100_000 },
    s2: { ...entry(4), outscale: 2, maxInputPixels: 90_000 },
    anime4: { ...entry(4), maxInputPixels: 100_000 },
    anime2: { ...entry(4), outscale: 2, maxInputPixels: 80_000 },
    drawn2: entry(2),
  },
  tiers: { fast: { 2: 'clean2', 4: 'clean4' }, balanced: { 2: 'b2' }, best: { 2: 'b2' }, sharp: { 2: 's2', 4: 's4' } },
  jpegVariants: { fast: { 2: { network: 'photo2', maxJpegQuality: 90 } } },
  // Illustration networks where they "win": sharp at 2x and 4x, fast at 2x only.
  illustration: { sharp: { 2: 'anime2', 4: 'anime4' }, fast: { 2: 'drawn2' } },
};

describe('selectNetwork', () => {
  it('runs the photo variant for a JPEG saved at or below the bound', () => {
    expect(selectNetwork(registry, 'fast', 2, { format: 'jpeg', jpegQuality: 75 })).toBe('photo2');
    expect(selectNetwork(registry, 'fast', 2, { format: 'jpeg', jpegQuality: 90 })).toBe('photo2');
  });

  it("runs the tier's own network for a JPEG above the bound or of unknown quality", () => {
    expect(selectNetwork(registry, 'fast', 2, { format: 'jpeg', jpegQuality: 91 })).toBe('clean2');
    expect(selectNetwork(registry, 'fast', 2, { format: 'jpeg' })).toBe('clean2');
  });

  it("runs the tier's own network for lossless and other formats whatever they carry", () => {
    for (const format of ['png', 'webp', 'avif'] as const)
      expect(selectNetwork(registry, 'fast', 2, { format, jpegQuality: 50 })).toBe('clean2');
  });

  it('falls back to the tier where no variant exists for that tier or scale', () => {
    expect(selectNetwork(registry, 'fast', 4, { format: 'jpeg', jpegQuality: 50 })).toBe('clean4');
    expect(selectNetwork(registry, 'balanced', 2, { format: 'jpeg', jpegQuality: 50 })).toBe('b2');
  });

  it('answers undefined where the registry has no network', () => {
    expect(selectNetwork(registry, 'balanced', 3, { format: 'png' })).toBeUndefined();
  });
});

describe('selectNetwork by content (the illustration network only where it wins)', () => {
  it('an illustration runs the illustration network of its tier and scale, whatever the format', () => {
    expect(selectNetwork(registry, 'sharp', 4, { format: 'png', content: 'illustration' })).toBe('anime4');
    expect(selectNetwork(registry, 'sharp', 2, { format: 'webp', content: 'illustration' })).toBe('anime2');
    expect(selectNetwork(registry, 'fast', 2, { format: 'png', content: 'illustration' })).toBe('drawn2');
    // Before the JPEG variant: the hint says what the picture is, the JPEG only how it was saved.
    expect(selectNetwork(registry, 'fast', 2, { format: 'jpeg', jpegQuality: 50, content: 'illustration' })).toBe('drawn2');
  });

  it('a photo, or no hint, runs the tier as before at every tier', () => {
    for (const content of ['photo', undefined] as const) {
      expect(selectNetwork(registry, 'sharp', 4, { format: 'png', content })).toBe('s4');
      expect(selectNetwork(registry, 'sharp', 2, { format: 'png', content })).toBe('s2');
      expect(selectNetwork(registry, 'fast', 2, { format: 'png', content })).toBe('clean2');
      expect(selectNetwork(registry, 'fast', 2, { format: 'jpeg', jpegQuality: 50, content })).toBe('photo2');
      expect(selectNetwork(registry, 'balanced', 2, { format: 'png', content })).toBe('b2');
    }
  });

  it('where no illustration network is listed, an illustration runs what a photo runs (tier network or JPEG variant)', () => {
    const as = (
      quality: 'fast' | 'balanced' | 'best' | 'sharp',
      scale: number,
      input: { format: 'png' | 'jpeg'; jpegQuality?: number },
    ) => [
      selectNetwork(registry, quality, scale, { ...input, content: 'illustration' }),
      selectNetwork(registry, quality, scale, { ...input, content: 'photo' }),
    ];
    expect(as('fast', 4, { format: 'png' })).toEqual(['clean4', 'clean4']);
    expect(as('balanced', 2, { format: 'png' })).toEqual(['b2', 'b2']);
    expect(as('best', 2, { format: 'jpeg', jpegQuality: 50 })).toEqual(['b2', 'b2']);
    expect(as('balanced', 3, { format: 'png' })).toEqual([undefined, undefined]);
    const none: NetworkRegistry = { ...registry, illustration: undefined };
    expect(selectNetwork(none, 'sharp', 4, { format: 'png', content: 'illustration' })).toBe('s4');
  });
});

describe('the built-in mapping of the content hint (docs/engine.md, "The content hint")', () => {
  it('sharp runs realesrgan-x4plus-anime for an illustration at 2x, 3x and 4x (PNG and JPEG alike), x4plus for a photo', () => {
    for (const input of [{ format: 'png' as const }, { format: 'jpeg' as const, jpegQuality: 50 }]) {
      expect([2, 3, 4].map((s) => selectNetwork(DEFAULT_REGISTRY, 'sharp', s, { ...input, content: 'illustration' }))).toEqual([
        'realesrgan-x4plus-anime-to-x2',
        'realesrgan-x4plus-anime-to-x3',
        'realesrgan-x4plus-anime',
      ]);
      expect([2, 3, 4].map((s) => selectNetwork(DEFAULT_REGISTRY, 'sharp', s, { ...input, content: 'photo' }))).toEqual([
        'realesrgan-x4plus-to-x2',
        'realesrgan-x4plus-to-x3',
        'realesrgan-x4plus',
      ]);
    }
  });

  it.each(QUALITY_TIERS.filter((q) => q !== 'sharp'))(
    '%s runs for an illustration what it runs for a photo, at every scale and input',
    (quality) => {
      for (const scale of [2, 3, 4]) {
        for (const input of [
          { format: 'png' as const },
          { format: 'jpeg' as const, jpegQuality: 50 },
          { format: 'jpeg' as const, jpegQuality: 95 },
        ]) {
          const photo = selectNetwork(DEFAULT_REGISTRY, quality, scale, { ...input, content: 'photo' });
          expect(photo).toBeDefined();
          expect(selectNetwork(DEFAULT_REGISTRY, quality, scale, { ...input, content: 'illustration' })).toBe(photo);
        }
      }
    },
  );

  it("the sharp tier's input limit is 100,000 pixels for a photo and for an illustration", () => {
    expect(DEFAULT_REGISTRY.networks['realesrgan-x4plus-anime'].maxInputPixels).toBe(
      DEFAULT_REGISTRY.networks['realesrgan-x4plus'].maxInputPixels,
    );
    expect(tierMaxInputPixels(DEFAULT_REGISTRY, 'sharp')).toBe(100_000);
    expect(tierMaxInputPixels(DEFAULT_REGISTRY, 'sharp', 'illustration')).toBe(100_000);
    for (const quality of QUALITY_TIERS.filter((q) => q !== 'sharp')) {
      expect(tierMaxInputPixels(DEFAULT_REGISTRY, quality, 'photo')).toBeUndefined();
      expect(tierMaxInputPixels(DEFAULT_REGISTRY, quality, 'illustration')).toBeUndefined();
    }
  });
});

describe('tierMaxInputPixels', () => {
  it('answers the smallest input limit of the networks the tier runs for a photo, or undefined where only the output limit applies', () => {
    expect(tierMaxInputPixels(registry, 'sharp')).toBe(90_000);
    expect(tierMaxInputPixels(registry, 'sharp', 'photo')).toBe(90_000);
    expect(tierMaxInputPixels(registry, 'fast')).toBeUndefined();
  });

  it('answers the limit of the networks the tier runs for an illustration when the hint says so', () => {
    expect(tierMaxInputPixels(registry, 'sharp', 'illustration')).toBe(80_000);
    expect(tierMaxInputPixels(registry, 'fast', 'illustration')).toBeUndefined();
  });

  it("counts a tier's JPEG variants: the limit does not depend on the input's format", () => {
    const bounded: NetworkRegistry = { ...registry, networks: { ...registry.networks, photo2: { ...entry(2), maxInputPixels: 70_000 } } };
    expect(tierMaxInputPixels(bounded, 'fast')).toBe(70_000);
    // An illustration at fast x2 runs drawn2 whatever the format: the photo variant's limit is not its.
    expect(tierMaxInputPixels(bounded, 'fast', 'illustration')).toBeUndefined();
  });
});
