jest.setTimeout(600_000);
import sharp from 'sharp';
import { createEngine, DEFAULT_REGISTRY, EngineError, type UpscaleEngine } from '@upscaler/engine';
import { noiseImage } from './onnx-helpers';

/** An RGBA PNG: noise colour, alpha opaque on the left half, a ramp on the right. */
async function rgbaPng(h: number, w: number): Promise<{ png: Buffer; alpha: Buffer }> {
  const rgb = noiseImage(h, w, 18);
  const rgba = Buffer.alloc(h * w * 4);
  const alpha = Buffer.alloc(h * w);
  for (let i = 0; i < h * w; i++) {
    for (let c = 0; c < 3; c++) rgba[i * 4 + c] = rgb[i * 3 + c];
    const x = i % w;
    alpha[i] = rgba[i * 4 + 3] = x < w / 2 ? 255 : Math.round((255 * (w - x)) / w);
  }
  return {
    png: await sharp(rgba, { raw: { width: w, height: h, channels: 4 } })
      .png()
      .toBuffer(),
    alpha,
  };
}

describe('the sharp tier (Real-ESRGAN x4plus; 2k and 3k run x4 and resize down with Lanczos-3)', () => {
  let engine: UpscaleEngine;
  beforeAll(async () => {
    engine = await createEngine();
  });
  afterAll(() => engine.close());

  it('runs realesrgan-x4plus at every target: 2k and 3k are the x4 output resized with Lanczos-3; alpha is kept as for the other tiers', async () => {
    const [H, W] = [20, 24];
    const { png, alpha } = await rgbaPng(H, W);
    const at = (target: '2k' | '3k' | '4k') => engine.upscale({ input: png, target, format: 'png', quality: 'sharp' });
    const x4 = await at('4k');
    const x2 = await at('2k');
    const x3 = await at('3k');
    expect([x2.network, x3.network, x4.network]).toEqual(['realesrgan-x4plus-to-x2', 'realesrgan-x4plus-to-x3', 'realesrgan-x4plus']);
    expect([x2.scale, x3.scale, x4.scale]).toEqual([2, 3, 4]);
    expect([x2.width, x2.height, x3.width, x3.height, x4.width, x4.height]).toEqual([48, 40, 72, 60, 96, 80]);
    const raw4 = await sharp(x4.output).raw().toBuffer({ resolveWithObject: true });
    expect(raw4.info.channels).toBe(4);
    const rgb4 = await sharp(raw4.data, { raw: { width: 96, height: 80, channels: 4 } })
      .removeAlpha()
      .raw()
      .toBuffer();
    for (const [r, s] of [
      [x2, 2],
      [x3, 3],
    ] as const) {
      const { data, info } = await sharp(r.output).raw().toBuffer({ resolveWithObject: true });
      expect(info.channels).toBe(4);
      // The colour: the 4k result resized with Lanczos-3, exactly.
      const expected = await sharp(rgb4, { raw: { width: 96, height: 80, channels: 3 } })
        .resize(W * s, H * s, { kernel: 'lanczos3', fit: 'fill' })
        .raw()
        .toBuffer();
      const colour = Buffer.alloc(W * s * H * s * 3);
      for (let i = 0; i < W * s * H * s; i++) for (let c = 0; c < 3; c++) colour[i * 3 + c] = data[i * 4 + c];
      expect(Buffer.compare(colour, expected)).toBe(0);
      // The alpha: the source plane resized with Lanczos-3 to the output size (never through the network).
      const expectedAlpha = await sharp(alpha, { raw: { width: W, height: H, channels: 1 } })
        .resize(W * s, H * s, { kernel: 'lanczos3', fit: 'fill' })
        .extractChannel(0)
        .raw()
        .toBuffer();
      const outAlpha = Buffer.alloc(W * s * H * s);
      for (let i = 0; i < outAlpha.length; i++) outAlpha[i] = data[i * 4 + 3];
      expect(Buffer.compare(outAlpha, expectedAlpha)).toBe(0);
    }
  });

  it('takes inputs up to 100,000 pixels at every target and refuses larger ones with image_too_large_to_upscale', async () => {
    const limit = DEFAULT_REGISTRY.networks['realesrgan-x4plus'].maxInputPixels;
    expect(limit).toBe(100_000);
    expect(engine.acceptedTargets(316, 316, 'sharp')).toEqual(['2k', '3k', '4k']);
    expect(engine.acceptedTargets(317, 316, 'sharp')).toEqual([]);
    expect(engine.acceptedTargets(317, 316, 'best')).toEqual(['2k', '3k', '4k']);
    const big = await sharp({ create: { width: 400, height: 251, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    const err = await engine.upscale({ input: big, target: '2k', format: 'png', quality: 'sharp' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe('image_too_large_to_upscale');
  });
});
