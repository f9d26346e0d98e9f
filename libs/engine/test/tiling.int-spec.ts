jest.setTimeout(600_000);
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { createEngine, DEFAULT_REGISTRY, type NetworkRegistry } from '@upscaler/engine';
import type { Target } from '@upscaler/contracts';
import { MODELS_DIR, noiseImage } from './onnx-helpers';

/** The default registry with every network's tile (and optionally halo) changed, and no JPEG variants. */
function registry(tile: number, radiusFactor = 1): NetworkRegistry {
  const networks = Object.fromEntries(
    Object.entries(DEFAULT_REGISTRY.networks).map(([id, n]) => [
      id,
      { ...n, tile, receptiveRadius: Math.floor(n.receptiveRadius * radiusFactor) },
    ]),
  );
  return { ...DEFAULT_REGISTRY, networks, jpegVariants: undefined };
}

/** `base` with its `fast` tier running network `id` at the scale it is listed under (its outscale, else its scale). */
function running(base: NetworkRegistry, id: string): NetworkRegistry {
  const scale = base.networks[id].outscale ?? base.networks[id].scale;
  return { ...base, tiers: { ...base.tiers, fast: { ...base.tiers.fast, [scale]: id } } };
}

const TARGET_OF_SCALE: Record<number, Target> = { 2: '2k', 3: '3k', 4: '4k' };

async function pngOf(h: number, w: number, seed: number): Promise<Buffer> {
  return sharp(Buffer.from(Uint8Array.from(noiseImage(h, w, seed))), { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

async function pixels(png: Buffer): Promise<Buffer> {
  return sharp(png).raw().toBuffer();
}

describe('exact tiling (tiled == full-frame, bit-identical)', () => {
  // Every network but thick (whose 154-pixel halo needs a wider image: next test), each run directly: the int8
  // ones too (precision 'int8', so on every CPU; their quantization scales are static, so a pixel's value cannot
  // depend on the tile it was computed in).
  // The RRDB Real-ESRGANs (94- and 349-pixel halos, cropped tail) have their own test below; realesr-animevideov3
  // (radius 18, at 4k and resized down to 2k and 3k) is here.
  const ids = Object.keys(DEFAULT_REGISTRY.networks).filter((id) => !id.startsWith('esrgan-thick') && !id.startsWith('realesrgan'));
  it.each(ids)('%s: 16-pixel tiles with the registry halo give the full-frame pixels; half the halo does not', async (id) => {
    const target = TARGET_OF_SCALE[DEFAULT_REGISTRY.networks[id].outscale ?? DEFAULT_REGISTRY.networks[id].scale];
    const [whole, tiled, short] = await Promise.all([
      createEngine({ registry: running(registry(4096), id), precision: 'int8' }),
      createEngine({ registry: running(registry(16), id), precision: 'int8' }),
      createEngine({ registry: running(registry(16, 0.5), id), precision: 'int8' }),
    ]);
    try {
      const input = await pngOf(45, 61, 3);
      const req = { input, target, format: 'png' as const, quality: 'fast' as const };
      const a = await whole.upscale(req);
      const b = await tiled.upscale(req);
      const c = await short.upscale(req);
      expect([a.network, b.network, c.network]).toEqual([id, id, id]);
      expect([a.tiles, b.tiles, c.tiles]).toEqual([1, 12, 12]);
      const [pa, pb, pc] = await Promise.all([pixels(a.output), pixels(b.output), pixels(c.output)]);
      expect(pa.length).toBe(45 * 61 * a.scale * a.scale * 3);
      expect(Buffer.compare(pb, pa)).toBe(0);
      expect(Buffer.compare(pc, pa)).not.toBe(0);
    } finally {
      await Promise.all([whole.close(), tiled.close(), short.close()]);
    }
  });

  it('esrgan-thick-x2 (154-pixel halo): three tiles give the full-frame pixels', async () => {
    const radius = DEFAULT_REGISTRY.networks['esrgan-thick-x2'].receptiveRadius;
    const wide = await createEngine({ registry: running(registry(120), 'esrgan-thick-x2') });
    const thick = await createEngine({ registry: running(registry(4096), 'esrgan-thick-x2') });
    try {
      // Wide enough that the middle tile's halo is clipped by neither border.
      const input = await pngOf(6, 2 * radius + 40, 5);
      const req = { input, target: '2k' as const, format: 'png' as const, quality: 'fast' as const };
      const a = await thick.upscale(req);
      const b = await wide.upscale(req);
      expect([a.network, b.network]).toEqual(['esrgan-thick-x2', 'esrgan-thick-x2']);
      expect([a.tiles, b.tiles]).toEqual([1, 3]);
      expect(Buffer.compare(await pixels(b.output), await pixels(a.output))).toBe(0);
    } finally {
      await Promise.all([wide.close(), thick.close()]);
    }
  });

  it.each([
    ['realesrgan-x4plus', 349],
    ['realesrgan-x4plus-anime', 94],
  ])(
    '%s (%i-pixel halo, tail cropped to 2): three tiles give the full-frame pixels; a tail cropped to the core does not',
    async (id, r) => {
      const radius = DEFAULT_REGISTRY.networks[id].receptiveRadius;
      expect(radius).toBe(r);
      const width = 2 * radius + 40;
      // Three equal tiles: x4plus 246 pixels wide, x4plus-anime 76.
      const tile = Math.ceil(width / 3) + 4;
      const cropped = (tailRadius: number): NetworkRegistry => {
        const reg = running(registry(2 * radius), id);
        return { ...reg, networks: { ...reg.networks, [id]: { ...reg.networks[id], tile, tailRadius } } };
      };
      const [whole, tiled, noTail] = await Promise.all([
        createEngine({ registry: running(registry(4096), id) }),
        createEngine({ registry: cropped(2) }),
        createEngine({ registry: cropped(0) }),
      ]);
      try {
        // The middle tile's features are cropped by radius - 2 pixels on both sides before the upsampling tail.
        const input = await pngOf(6, width, 9);
        const req = { input, target: '4k' as const, format: 'png' as const, quality: 'fast' as const };
        const a = await whole.upscale(req);
        const b = await tiled.upscale(req);
        const c = await noTail.upscale(req);
        expect([a.network, b.network, c.network]).toEqual([id, id, id]);
        expect([a.tiles, b.tiles, c.tiles]).toEqual([1, 3, 3]);
        const [pa, pb, pc] = await Promise.all([pixels(a.output), pixels(b.output), pixels(c.output)]);
        expect(pa.length).toBe(6 * 4 * width * 4 * 3);
        expect(Buffer.compare(pb, pa)).toBe(0);
        expect(Buffer.compare(pc, pa)).not.toBe(0);
      } finally {
        await Promise.all([whole.close(), tiled.close(), noTail.close()]);
      }
    },
  );

  it('the registry radii are the ones the converter computed (models/manifest.json) or training exported', () => {
    const manifest = JSON.parse(readFileSync(join(MODELS_DIR, 'manifest.json'), 'utf8'));
    for (const [id, entry] of Object.entries(DEFAULT_REGISTRY.networks)) {
      const radius = id.startsWith('ours-')
        ? JSON.parse(readFileSync(join(MODELS_DIR, '..', 'training', 'exports', `${entry.file}.json`), 'utf8')).receptive_radius_lr
        : // A converted network listed several times (realesrgan-x4plus, x4plus-anime, animevideov3 at x2 / x3 / x4) has
          // one manifest entry, by file.
          Object.values(manifest.models as Record<string, { file: string; receptiveRadius: number }>).find((m) => m.file === entry.file)
            ?.receptiveRadius;
      expect([id, radius]).toEqual([id, entry.receptiveRadius]);
    }
  });
});
