jest.setTimeout(600_000);
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODELS_DIR, openSession } from './onnx-helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { convertRealesrgan } = require('../../../scripts/convert-ncnn/convert-realesrgan');

/** Made by ncnn itself on CPU (scripts/convert-ncnn/ncnn_reference.py): input and output of realesrgan-x4plus. */
const FIXTURE = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'realesrgan-x4plus-ncnn.json'), 'utf8')) as {
  reference: string;
  height: number;
  width: number;
  scale: number;
  inputUint8Chw: string;
  outputFloat32Chw0to255: string;
};

describe('ncnn -> ONNX conversion of Real-ESRGAN x4plus (issue 18: equals ncnn within 1e-3 on 0-255)', () => {
  it('the ONNX graph reproduces ncnn (CPU, float32) on a 20x16 image within 1e-3', async () => {
    const { height: H, width: W, scale } = FIXTURE;
    const chw = Buffer.from(FIXTURE.inputUint8Chw, 'base64');
    const refBytes = Buffer.from(FIXTURE.outputFloat32Chw0to255, 'base64');
    const ref = new Float32Array(refBytes.buffer.slice(refBytes.byteOffset, refBytes.byteOffset + refBytes.byteLength));
    const n = H * W;
    const rgb = new Float32Array(3 * n);
    for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) rgb[i * 3 + c] = chw[c * n + i];
    const session = await openSession('realesrgan-x4plus');
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
    expect(maxDiff).toBeLessThan(1e-3);
    // Not a vacuous comparison: the network produces real pixel values.
    expect(maxAbs).toBeGreaterThan(100);
  });

  it('computes the receptive radius from the graph: 349 input pixels, 2 of them in the upsampling tail', () => {
    const manifest = JSON.parse(readFileSync(join(MODELS_DIR, 'manifest.json'), 'utf8'));
    // 1 (first conv) + 23 RRDB x 3 dense blocks x 5 convs + 1 (trunk conv) = 347 on the input grid; the tail
    // (conv at x2, conv + 2 convs at x4 after nearest upsamplings) adds ceil(ceil(3/2)+1)/2) = 2.
    expect(manifest.models['realesrgan-x4plus']).toMatchObject({ scale: 4, receptiveRadius: 349, tailRadius: 2 });
  });

  it('converts once, then answers from its content-hash cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'models-'));
    try {
      const log = () => undefined;
      const first = await convertRealesrgan({ modelsDir: dir, log });
      expect(first.converted).toEqual(['realesrgan-x4plus']);
      const sha = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).models['realesrgan-x4plus'].sha256;
      const second = await convertRealesrgan({ modelsDir: dir, log });
      expect(second).toEqual({ converted: [], cached: ['realesrgan-x4plus'] });
      // Deterministic: the same sources give the same bytes as the shared folder's conversion.
      expect(sha).toBe(JSON.parse(readFileSync(join(MODELS_DIR, 'manifest.json'), 'utf8')).models['realesrgan-x4plus'].sha256);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
