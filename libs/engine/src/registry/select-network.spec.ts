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
  },
  tiers: { fast: { 2: 'clean2', 4: 'clean4' }, balanced: { 2: 'b2' }, best: { 2: 'b2' }, sharp: { 2: 's2', 4: 's4' } },
  jpegVariants: { fast: { 2: { network: 'photo2', maxJpegQuality: 90 } } },
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

describe('tierMaxInputPixels', () => {
  it("answers the smallest input limit of the tier's networks, or undefined where only the output limit applies", () => {
    expect(tierMaxInputPixels(registry, 'sharp')).toBe(90_000);
    expect(tierMaxInputPixels(registry, 'fast')).toBeUndefined();
  });
});
