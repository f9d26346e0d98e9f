// Speed: ms per output megapixel of every network x scale, in one run, for (1) our ONNX graphs on ONNX Runtime
// (CPU, intra-op threads = cores), (2) the same weights on TF.js with the wasm backend, (3) sharp's plain Lanczos
// resize; prints the ratios. Usage: nice -n 10 node bench/engine/run.js speed [--networks slim,medium,thick]
// [--scales 2,3,4] [--size 96] [--thick-size 48] [--ours-size 256] [--repeat 2] [--no-tfjs]
// "ours" / "ours-balanced" / "ours-photo" are the networks we trained (training/, models/ours-fast-x<s>.onnx,
// models/ours-balanced-x<s>.onnx, ...; ours-blend-x2 and ours-blend-x4 each hold two of them, sr export-blend): they have no TF.js twin, so their TF.js columns are empty; they run at a larger
// input because they are fast enough to measure on one. Where an int8 version ships (models/<id>-x<s>-int8.onnx)
// it is timed in the same loop, its runs alternating with the float32 file's, and printed beside it.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { loadTfjsNetwork } from '../../libs/engine/test/tfjs-reference';
import { MODELS_DIR, noiseImage } from '../../libs/engine/test/onnx-helpers';
import { arg } from './args';
import { machineLine, printTable } from './table';

async function best(repeat: number, fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm-up: session initialisation, arena growth, wasm compilation
  let min = Infinity;
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    await fn();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

/** best() of two functions at once, their runs alternating; the second may be absent (NaN). */
async function bestOfPair(repeat: number, a: () => Promise<unknown>, b?: () => Promise<unknown>): Promise<[number, number]> {
  await a();
  await b?.();
  const min = [Infinity, Infinity];
  for (let i = 0; i < repeat; i++) {
    for (const [k, fn] of [a, b].entries()) {
      if (!fn) continue;
      const t = performance.now();
      await fn();
      min[k] = Math.min(min[k], performance.now() - t);
    }
  }
  return [min[0], b ? min[1] : NaN];
}

async function main(): Promise<void> {
  const networks = arg('networks', 'ours,ours-balanced,ours-photo,ours-blend,slim,medium,thick').split(',');
  const scales = arg('scales', '2,3,4').split(',').map(Number);
  const repeat = Number(arg('repeat', '2'));
  const withTfjs = !process.argv.includes('--no-tfjs');
  const threads = Number(arg('threads', String(availableParallelism())));
  const opt = arg('opt', 'all') as 'all';
  const rows: (string | number)[][] = [];
  console.log(machineLine());
  for (const network of networks) {
    const ours = network.startsWith('ours');
    const size = Number(network === 'thick' ? arg('thick-size', '48') : ours ? arg('ours-size', '256') : arg('size', '96'));
    const id = network === 'ours' ? 'ours-fast' : ours ? network : `esrgan-${network}`;
    for (const scale of scales) {
      const file = `${id}-x${scale}.onnx`;
      if (!existsSync(join(MODELS_DIR, file))) continue; // no trained network at this scale (yet)
      const rgb = noiseImage(size, size, scale);
      const outMp = (size * scale) ** 2 / 1e6;
      const n = size * size;
      const planar = new Float32Array(3 * n);
      for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) planar[c * n + i] = rgb[i * 3 + c];
      const open = (f: string) =>
        ort.InferenceSession.create(join(MODELS_DIR, f), { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: opt });
      const session = await open(file);
      const int8File = `${id}-x${scale}-int8.onnx`;
      const int8 = ours && existsSync(join(MODELS_DIR, int8File)) ? await open(int8File) : undefined;
      const tensor = new ort.Tensor('float32', planar, [1, 3, size, size]);
      // float32 and int8 alternate run by run, so a change in the machine's load hits both alike.
      const [ortMs, int8Ms] = await bestOfPair(repeat, () => session.run({ input: tensor }), int8 && (() => int8.run({ input: tensor })));
      await Promise.all([session.release(), int8?.release()]);
      let tfMs = NaN;
      const tfjsTwin = withTfjs && !ours;
      if (tfjsTwin) {
        const ref = await loadTfjsNetwork(network as 'slim' | 'medium' | 'thick', scale);
        tfMs = await best(repeat, () => ref.predict(rgb, size, size));
        ref.dispose();
      }
      const png = await sharp(Buffer.from(Uint8Array.from(rgb)), { raw: { width: size, height: size, channels: 3 } })
        .png()
        .toBuffer();
      const sharpMs = await best(repeat, () =>
        sharp(png)
          .resize(size * scale, size * scale, { kernel: 'lanczos3' })
          .raw()
          .toBuffer(),
      );
      rows.push([
        ours ? `${id} x${scale}` : `${network} x${scale}`,
        `${size}x${size}`,
        (ortMs / outMp).toFixed(0),
        int8 ? (int8Ms / outMp).toFixed(0) : '-',
        int8 ? (int8Ms / ortMs).toFixed(2) : '-',
        tfjsTwin ? (tfMs / outMp).toFixed(0) : '-',
        tfjsTwin ? `${(tfMs / ortMs).toFixed(1)}x` : '-',
        (sharpMs / outMp).toFixed(1),
        `${(ortMs / sharpMs).toFixed(0)}x`,
      ]);
      console.error(`done ${network} x${scale}`);
    }
  }
  console.log(
    `ONNX Runtime ${ort.env.versions?.common ?? ''} threads=${threads} graphOptimizationLevel=${opt}; TF.js wasm backend; min of ${repeat} runs after a warm-up`,
  );
  printTable(
    [
      'network',
      'input',
      'ORT float32 ms/out MP',
      'ORT int8 ms/out MP',
      'int8 / float32',
      'TF.js wasm ms/out MP',
      'TF.js / ORT',
      'sharp lanczos3 ms/out MP',
      'ORT / sharp',
    ],
    rows,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
