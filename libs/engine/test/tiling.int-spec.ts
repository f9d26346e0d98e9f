jest.setTimeout(600_000);
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { createEngine, DEFAULT_REGISTRY, type NetworkRegistry, type UpscaleEngine } from '@upscaler/engine';
import type { QualityTier, Target } from '@upscaler/contracts';
import { MODELS_DIR, noiseImage } from './onnx-helpers';

/** The default registry with every network's tile (and optionally halo) changed. */
function registry(tile: number, radiusFactor = 1): NetworkRegistry {
  const networks = Object.fromEntries(
    Object.entries(DEFAULT_REGISTRY.networks).map(([id, n]) => [
      id,
      { ...n, tile, receptiveRadius: Math.floor(n.receptiveRadius * radiusFactor) },
    ]),
  );
  return { ...DEFAULT_REGISTRY, networks };
}

async function pngOf(h: number, w: number, seed: number): Promise<Buffer> {
  return sharp(Buffer.from(Uint8Array.from(noiseImage(h, w, seed))), { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

async function pixels(png: Buffer): Promise<Buffer> {
  return sharp(png).raw().toBuffer();
}

describe('exact tiling (issue 2: tiled == full-frame, bit-identical)', () => {
  let full: UpscaleEngine;
  let tiled: UpscaleEngine;
  let short: UpscaleEngine;
  beforeAll(async () => {
    full = await createEngine({ registry: registry(4096) });
    tiled = await createEngine({ registry: registry(16) });
    short = await createEngine({ registry: registry(16, 0.5) });
  });
  afterAll(async () => {
    await Promise.all([full.close(), tiled.close(), short.close()]);
  });

  // A JPEG (q75) input makes the fast tier run its photo variants at 2k and 4k.
  const cases: [QualityTier, Target, 'png' | 'jpeg'][] = [
    ...(['fast', 'balanced'] as const).flatMap((q) =>
      (['2k', '3k', '4k'] as const).map((t) => [q, t, 'png'] as [QualityTier, Target, 'png']),
    ),
    ['fast', '2k', 'jpeg'],
    ['fast', '4k', 'jpeg'],
  ];
  it.each(cases)(
    '%s at %s from %s: 16-pixel tiles with the registry halo give the full-frame pixels; half the halo does not',
    async (quality, target, kind) => {
      const png = await pngOf(45, 61, 3);
      const input = kind === 'jpeg' ? await sharp(png).jpeg({ quality: 75 }).toBuffer() : png;
      const req = { input, target, format: 'png' as const, quality };
      const a = await full.upscale(req);
      const b = await tiled.upscale(req);
      const c = await short.upscale(req);
      expect([a.tiles, b.tiles, c.tiles]).toEqual([1, 12, 12]);
      expect(b.network).toBe(a.network);
      const [pa, pb, pc] = await Promise.all([pixels(a.output), pixels(b.output), pixels(c.output)]);
      expect(pa.length).toBe(45 * 61 * a.scale * a.scale * 3);
      expect(Buffer.compare(pb, pa)).toBe(0);
      expect(Buffer.compare(pc, pa)).not.toBe(0);
    },
  );

  it('best (thick, 154-pixel halo) at 2k: three tiles give the full-frame pixels', async () => {
    const radius = DEFAULT_REGISTRY.networks['esrgan-thick-x2'].receptiveRadius;
    const wide = await createEngine({ registry: registry(120) });
    try {
      // Wide enough that the middle tile's halo is clipped by neither border.
      const input = await pngOf(6, 2 * radius + 40, 5);
      const req = { input, target: '2k' as const, format: 'png' as const, quality: 'best' as const };
      const a = await full.upscale(req);
      const b = await wide.upscale(req);
      expect([a.tiles, b.tiles]).toEqual([1, 3]);
      expect(Buffer.compare(await pixels(b.output), await pixels(a.output))).toBe(0);
    } finally {
      await wide.close();
    }
  });

  it('the registry radii are the ones the converter computed (models/manifest.json) or training exported', () => {
    const manifest = JSON.parse(readFileSync(join(MODELS_DIR, 'manifest.json'), 'utf8'));
    for (const [id, entry] of Object.entries(DEFAULT_REGISTRY.networks)) {
      const radius = id.startsWith('ours-')
        ? JSON.parse(readFileSync(join(MODELS_DIR, '..', 'training', 'exports', `${entry.file}.json`), 'utf8')).receptive_radius_lr
        : manifest.models[id]?.receptiveRadius;
      expect([id, radius]).toEqual([id, entry.receptiveRadius]);
    }
  });
});
