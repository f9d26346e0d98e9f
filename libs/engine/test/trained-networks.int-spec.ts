jest.setTimeout(600_000);
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { createEngine, imresizeBicubic, modcrop, scoreY, type UpscaleEngine } from '@upscaler/engine';

/**
 * Issue 6: our trained networks, run by the engine exactly as the service runs them (PNG in, tiles,
 * PNG out), reproduce the Set5 PSNR recorded in their model cards (docs/model-cards/, measured with
 * training/evaluate.py on onnxruntime) within 0.05 dB: deterministic given the committed weights.
 */
const SET5 = join(__dirname, '..', '..', '..', '..', 'shared', 'datasets', 'Set5');

/** The Set5 PSNR its model card records (written with the ONNX file by training/release.py). */
function recordedSet5(network: string): number {
  const card = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'model-cards', `${network}.md`), 'utf8');
  const row = new RegExp(`^\\| ${network} \\| bicubic \\| ([0-9.]+) /`, 'm').exec(card);
  if (!row) throw new Error(`no bicubic Set5 row for ${network} in its model card`);
  return Number(row[1]);
}

describe('trained networks in the engine', () => {
  let engine: UpscaleEngine;
  beforeAll(async () => {
    engine = await createEngine({});
  });
  afterAll(async () => {
    await engine.close();
  });

  it.each([
    [2, '2k', 'ours-fast-x2'],
    [4, '4k', 'ours-fast-x4'],
  ] as const)('x%i (%s) runs %s and scores the Set5 PSNR of its model card (Y, shave = scale)', async (scale, target, network) => {
    const recorded = recordedSet5(network);
    expect(recorded).toBeGreaterThan(scale === 2 ? 36 : 30);
    const files = readdirSync(SET5).filter((f) => f.endsWith('.png')).sort();
    let total = 0;
    for (const f of files) {
      const { data, info } = await sharp(join(SET5, f)).raw().toBuffer({ resolveWithObject: true });
      const hr = modcrop({ width: info.width, height: info.height, channels: info.channels, data: new Uint8Array(data) }, scale);
      const lr = imresizeBicubic(hr, 1 / scale);
      const input = await sharp(Buffer.from(lr.data), { raw: { width: lr.width, height: lr.height, channels: lr.channels as 3 } })
        .png()
        .toBuffer();
      const out = await engine.upscale({ input, target, format: 'png', quality: 'fast' });
      expect(out.network).toBe(network);
      const sr = await sharp(out.output).raw().toBuffer({ resolveWithObject: true });
      total += scoreY({ width: sr.info.width, height: sr.info.height, channels: sr.info.channels, data: new Uint8Array(sr.data) }, hr, scale).psnr;
    }
    const mean = total / files.length;
    expect(Math.abs(mean - recorded)).toBeLessThanOrEqual(0.05);
  });
});
