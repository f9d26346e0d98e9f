jest.setTimeout(600_000);
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODELS_DIR, openSession } from './onnx-helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { convertRealesrgan } = require('../../../scripts/convert-ncnn/convert-realesrgan');

interface Fixture {
  reference: string;
  height: number;
  width: number;
  scale: number;
  inputUint8Chw: string;
  outputFloat32Chw0to255: string;
}

/** Made by ncnn itself on CPU (scripts/convert-ncnn/ncnn_reference.py): input and output of each network of the wheel. */
const fixture = (id: string) => JSON.parse(readFileSync(join(__dirname, 'fixtures', `${id}-ncnn.json`), 'utf8')) as Fixture;

/** Largest difference between our ONNX graph and ncnn on the fixture's 20x16 image, and the largest value ncnn gave. */
async function againstNcnn(id: string): Promise<{ maxDiff: number; maxAbs: number }> {
  const { height: H, width: W, scale, inputUint8Chw, outputFloat32Chw0to255 } = fixture(id);
  const chw = Buffer.from(inputUint8Chw, 'base64');
  const refBytes = Buffer.from(outputFloat32Chw0to255, 'base64');
  const ref = new Float32Array(refBytes.buffer.slice(refBytes.byteOffset, refBytes.byteOffset + refBytes.byteLength));
  const n = H * W;
  const rgb = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) rgb[i * 3 + c] = chw[c * n + i];
  const session = await openSession(id);
  const ours = await session.run(rgb, H, W, scale);
  await session.release();
  const m = n * scale * scale;
  expect(ours.length).toBe(3 * m);
  expect(ref.length).toBe(3 * m);
  let maxDiff = 0;
  let maxAbs = 0;
  for (let i = 0; i < m; i++) {
    for (let c = 0; c < 3; c++) {
      maxDiff = Math.max(maxDiff, Math.abs(ours[i * 3 + c] - ref[c * m + i]));
      maxAbs = Math.max(maxAbs, Math.abs(ref[c * m + i]));
    }
  }
  return { maxDiff, maxAbs };
}

const NETWORKS = ['realesrgan-x4plus', 'realesrgan-x4plus-anime', 'realesr-animevideov3-x4'];

describe('ncnn -> ONNX conversion of the Real-ESRGAN networks (each equals ncnn within 1e-3 on 0-255)', () => {
  // Measured: 3.2e-4 (x4plus), 2.7e-4 (x4plus-anime), 1.5e-4 (animevideov3): float32 sums in another order.
  it.each(NETWORKS)('the ONNX graph of %s reproduces ncnn (CPU, float32) on a 20x16 image within 1e-3', async (id) => {
    const { maxDiff, maxAbs } = await againstNcnn(id);
    expect(maxDiff).toBeLessThan(1e-3);
    // Not a vacuous comparison: the network produces real pixel values.
    expect(maxAbs).toBeGreaterThan(100);
  });

  it('computes the receptive radius from the graph: 349 / 94 input pixels (2 in the upsampling tail), 18 for the compact net', () => {
    const manifest = JSON.parse(readFileSync(join(MODELS_DIR, 'manifest.json'), 'utf8'));
    // 1 (first conv) + 23 RRDB x 3 dense blocks x 5 convs + 1 (trunk conv) = 347 on the input grid; the tail
    // (conv at x2, conv + 2 convs at x4 after nearest upsamplings) adds ceil(ceil(3/2)+1)/2) = 2.
    expect(manifest.models['realesrgan-x4plus']).toMatchObject({ scale: 4, receptiveRadius: 349, tailRadius: 2 });
    // The anime network: 6 RRDB instead of 23: 1 + 6 x 15 + 1 + 2.
    expect(manifest.models['realesrgan-x4plus-anime']).toMatchObject({ scale: 4, receptiveRadius: 94, tailRadius: 2 });
    // animevideov3: 18 convolutions on the input grid, then a pixel shuffle (x4) beside a nearest x4 of the input;
    // no crop input (its whole halo is small), so no tail radius.
    expect(manifest.models['realesr-animevideov3-x4']).toMatchObject({ scale: 4, receptiveRadius: 18 });
    expect(manifest.models['realesr-animevideov3-x4'].tailRadius).toBeUndefined();
  });

  it('converts at install the two a tier runs, on demand the third, then answers from its content-hash cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'models-'));
    try {
      const log = () => undefined;
      // The install makes the two networks a tier runs; animevideov3 (no tier) only when asked for everything.
      const install = await convertRealesrgan({ modelsDir: dir, log, install: true });
      expect(install).toEqual({ converted: ['realesrgan-x4plus', 'realesrgan-x4plus-anime'], cached: [] });
      const first = await convertRealesrgan({ modelsDir: dir, log });
      expect(first).toEqual({ converted: ['realesr-animevideov3-x4'], cached: ['realesrgan-x4plus', 'realesrgan-x4plus-anime'] });
      const models = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).models;
      const second = await convertRealesrgan({ modelsDir: dir, log });
      expect(second).toEqual({ converted: [], cached: NETWORKS });
      // Deterministic: the same sources give the same bytes as the shared folder's conversion.
      const shared = JSON.parse(readFileSync(join(MODELS_DIR, 'manifest.json'), 'utf8')).models;
      for (const id of NETWORKS) expect(models[id].sha256).toBe(shared[id].sha256);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
