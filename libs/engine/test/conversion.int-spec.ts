jest.setTimeout(600_000);
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTfjsNetwork } from './tfjs-reference';
import { noiseImage, openSession } from './onnx-helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { convertAll } = require('../../../scripts/convert/convert-all');

const H = 24;
const W = 20;

describe('TF.js -> ONNX conversion (converted output equals TF.js wasm within 1e-3 on 0-255)', () => {
  const cases = (['slim', 'medium', 'thick'] as const).flatMap((n) => [2, 3, 4].map((s) => [n, s] as const));
  it.each(cases)('esrgan-%s x%i matches TF.js on a 24x20 image', async (network, scale) => {
    const rgb = noiseImage(H, W, 7 * scale);
    const session = await openSession(`esrgan-${network}-x${scale}`);
    const ours = await session.run(rgb, H, W, scale);
    await session.release();
    const ref = await loadTfjsNetwork(network, scale);
    const theirs = await ref.predict(rgb, H, W);
    ref.dispose();
    expect(ours.length).toBe(H * W * scale * scale * 3);
    expect(theirs.length).toBe(ours.length);
    let maxDiff = 0;
    let maxAbs = 0;
    for (let i = 0; i < ours.length; i++) {
      maxDiff = Math.max(maxDiff, Math.abs(ours[i] - theirs[i]));
      maxAbs = Math.max(maxAbs, Math.abs(theirs[i]));
    }
    expect(maxDiff).toBeLessThan(1e-3);
    // Not a vacuous comparison: the network produces real pixel values.
    expect(maxAbs).toBeGreaterThan(100);
  });
});

describe('convert-models (on demand, for tests and benchmarks)', () => {
  it('converts once, then answers from its content-hash cache', () => {
    const dir = mkdtempSync(join(tmpdir(), 'models-'));
    try {
      const log = () => undefined;
      const first = convertAll({ modelsDir: dir, only: ['esrgan-slim-x2'], log });
      expect(first.converted).toEqual(['esrgan-slim-x2']);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
      expect(manifest.models['esrgan-slim-x2']).toMatchObject({ file: 'esrgan-slim-x2.onnx', scale: 2, receptiveRadius: 10 });
      const second = convertAll({ modelsDir: dir, only: ['esrgan-slim-x2'], log });
      expect(second).toMatchObject({ converted: [], cached: ['esrgan-slim-x2'] });
      const forced = convertAll({ modelsDir: dir, only: ['esrgan-slim-x2'], log, force: true });
      expect(forced.converted).toEqual(['esrgan-slim-x2']);
      // Deterministic: the same sources give the same bytes.
      expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).models['esrgan-slim-x2'].sha256).toBe(
        manifest.models['esrgan-slim-x2'].sha256,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
