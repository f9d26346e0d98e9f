jest.setTimeout(600_000);
import sharp from 'sharp';
import { QUALITY_TIERS, type Target } from '@upscaler/contracts';
import { createEngine, DEFAULT_REGISTRY, type UpscaleEngine } from '@upscaler/engine';
import { noiseImage } from './onnx-helpers';

/**
 * The content hint: `content: illustration` runs the illustration network where it measured better (the
 * sharp tier: realesrgan-x4plus-anime) and exactly what a photo runs everywhere else (docs/engine.md, "The content
 * hint"; the measurements: docs/benchmarks.md, "Illustrations").
 */

/** A small drawing: flat colours, a dark outline and a thin line, as the networks see a screenshot or line art. */
async function drawing(w: number, h: number): Promise<Buffer> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#fbfaf5"/>` +
    `<circle cx="${w / 2}" cy="${h / 2}" r="${h / 3}" fill="#e76f51" stroke="#222" stroke-width="2"/>` +
    `<line x1="0" y1="2" x2="${w}" y2="${h - 2}" stroke="#111" stroke-width="1"/></svg>`;
  return sharp(Buffer.from(svg)).removeAlpha().png().toBuffer();
}

describe('the content hint: the illustration network only where it wins', () => {
  let engine: UpscaleEngine;
  beforeAll(async () => {
    engine = await createEngine();
  });
  afterAll(() => engine.close());

  it('the built-in registry lists an illustration network for the sharp tier only', () => {
    expect(DEFAULT_REGISTRY.illustration).toEqual({
      sharp: { 2: 'realesrgan-x4plus-anime-to-x2', 3: 'realesrgan-x4plus-anime-to-x3', 4: 'realesrgan-x4plus-anime' },
    });
    expect(engine.describe().illustration).toEqual(DEFAULT_REGISTRY.illustration);
  });

  it('an illustration at sharp runs realesrgan-x4plus-anime at every target (2k and 3k resized from its x4), a photo x4plus', async () => {
    const input = await drawing(24, 20);
    const run = (target: Target, content?: 'photo' | 'illustration') =>
      engine.upscale({ input, target, format: 'png', quality: 'sharp', content });
    const [x2, x3, x4] = [await run('2k', 'illustration'), await run('3k', 'illustration'), await run('4k', 'illustration')];
    expect([x2.network, x3.network, x4.network]).toEqual([
      'realesrgan-x4plus-anime-to-x2',
      'realesrgan-x4plus-anime-to-x3',
      'realesrgan-x4plus-anime',
    ]);
    expect([x2.width, x2.height, x3.width, x3.height, x4.width, x4.height]).toEqual([48, 40, 72, 60, 96, 80]);
    // 2k: the 4k result resized with Lanczos-3, exactly, as for x4plus (sharp-tier.int-spec.ts).
    const rgb4 = await sharp(x4.output).raw().toBuffer();
    const expected = await sharp(rgb4, { raw: { width: 96, height: 80, channels: 3 } })
      .resize(48, 40, { kernel: 'lanczos3', fit: 'fill' })
      .raw()
      .toBuffer();
    expect(Buffer.compare(await sharp(x2.output).raw().toBuffer(), expected)).toBe(0);
    // Another network indeed: a photo (and a job without the hint) runs x4plus and gives other pixels.
    const [photo, unhinted] = [await run('4k', 'photo'), await run('4k')];
    expect([photo.network, unhinted.network]).toEqual(['realesrgan-x4plus', 'realesrgan-x4plus']);
    expect(Buffer.compare(await sharp(photo.output).raw().toBuffer(), rgb4)).not.toBe(0);
    expect(Buffer.compare(await sharp(unhinted.output).raw().toBuffer(), await sharp(photo.output).raw().toBuffer())).toBe(0);
  });

  it.each(QUALITY_TIERS.filter((q) => q !== 'sharp'))(
    'at %s an illustration runs exactly what a photo runs, PNG and low-quality JPEG alike (the same network, the same bytes)',
    async (quality) => {
      const png = await drawing(40, 28);
      const noisy = await sharp(Buffer.from(Uint8Array.from(noiseImage(28, 40, 7))), { raw: { width: 40, height: 28, channels: 3 } })
        .jpeg({ quality: 50 })
        .toBuffer();
      for (const input of [png, noisy]) {
        for (const target of ['2k', '3k', '4k'] as const) {
          const photo = await engine.upscale({ input, target, format: 'png', quality, content: 'photo' });
          const drawn = await engine.upscale({ input, target, format: 'png', quality, content: 'illustration' });
          expect([quality, target, drawn.network]).toEqual([quality, target, photo.network]);
          expect(Buffer.compare(drawn.output, photo.output)).toBe(0);
        }
      }
    },
  );

  it("the sharp tier's input limit does not depend on the hint: 100,000 pixels for both networks", () => {
    expect(DEFAULT_REGISTRY.networks['realesrgan-x4plus-anime'].maxInputPixels).toBe(100_000);
    expect([engine.acceptedTargets(316, 316, 'sharp'), engine.acceptedTargets(317, 316, 'sharp')]).toEqual([['2k', '3k', '4k'], []]);
  });
});
