// Tiers: what a job costs end to end in the engine (decode, tiles, self-ensemble where the registry asks for it,
// encode) for every quality tier x target, on one PNG input, in one run, at both precisions: an engine
// running float32 (what each int8 network gives way to: its float32 parent, or its atFloat32 stand-in) and one
// running int8 (UPSCALE_ENGINE_PRECISION), their runs alternating. Each cost is also a ratio to float32 `fast` at
// the same target. A tier whose network is the same at both precisions (sharp: Real-ESRGAN has no int8 version)
// runs once and its row repeats the figure. A tier with an input limit below the input (sharp: 100,000 pixels) runs
// the largest square it takes: run with `--size 256` for every tier on the same input.
// Usage: nice -n 10 node bench/engine/run.js tiers [--size 384] [--repeat 2]
//        [--registry file.json] [--tiers fast,balanced,best,sharp] [--targets 2k,3k,4k]
import sharp from 'sharp';
import type { QualityTier, Target } from '@upscaler/contracts';
import { createEngine, type UpscaleEngine, type UpscaleResult } from '@upscaler/engine';
import { noiseImage } from '../../libs/engine/test/onnx-helpers';
import { arg } from './args';
import { machineLine, printTable } from './table';

async function main(): Promise<void> {
  const size = Number(arg('size', '384'));
  const repeat = Number(arg('repeat', '2'));
  const tiers = arg('tiers', 'fast,balanced,best,sharp').split(',') as QualityTier[];
  const targets = arg('targets', '2k,3k,4k').split(',') as Target[];
  const registry = arg('registry', '') || undefined;
  const engines: Record<'float32' | 'int8', UpscaleEngine> = {
    float32: await createEngine({ registry, precision: 'float32' }),
    int8: await createEngine({ registry, precision: 'int8' }),
  };
  const png = (side: number) =>
    sharp(Buffer.from(Uint8Array.from(noiseImage(side, side, 7))), { raw: { width: side, height: side, channels: 3 } })
      .png()
      .toBuffer();
  /** The largest square up to --size that the tier takes at the target. */
  const sideFor = (quality: QualityTier, target: Target): number => {
    let side = size;
    while (side > 1 && !engines.float32.acceptedTargets(side, side, quality).includes(target)) side--;
    return side;
  };
  console.log(machineLine());
  const rows: (string | number)[][] = [];
  try {
    for (const target of targets) {
      let fastMs = NaN;
      for (const quality of tiers) {
        const first: Partial<Record<'float32' | 'int8', UpscaleResult>> = {};
        const ms = { float32: Infinity, int8: Infinity };
        const side = sideFor(quality, target);
        const input = await png(side);
        const scale = { '2k': 2, '3k': 3, '4k': 4 }[target];
        const same = engines.float32.describe().tiers[quality][scale] === engines.int8.describe().tiers[quality][scale];
        for (let i = 0; i <= repeat; i++) {
          for (const p of same ? (['float32'] as const) : (['float32', 'int8'] as const)) {
            const t = performance.now();
            const r = await engines[p].upscale({ input, target, format: 'png', quality });
            if (i === 0)
              first[p] = r; // warm-up: session creation, arena growth
            else ms[p] = Math.min(ms[p], performance.now() - t);
          }
        }
        if (same) {
          first.int8 = first.float32;
          ms.int8 = ms.float32;
        }
        const { float32, int8 } = first as Record<'float32' | 'int8', UpscaleResult>;
        const outMp = (float32.width * float32.height) / 1e6;
        if (quality === 'fast') fastMs = ms.float32;
        const vsFast = (x: number) => (Number.isNaN(fastMs) ? '-' : `${(x / fastMs).toFixed(1)}x`);
        rows.push([
          target,
          quality,
          `${side}x${side}`,
          float32.tiles,
          float32.network,
          (ms.float32 / outMp).toFixed(0),
          int8.network,
          (ms.int8 / outMp).toFixed(0),
          (ms.int8 / ms.float32).toFixed(2),
          vsFast(ms.float32),
          vsFast(ms.int8),
        ]);
        console.error(`done ${target} ${quality}`);
      }
    }
  } finally {
    await Promise.all([engines.float32.close(), engines.int8.close()]);
  }
  console.log(`engine.upscale, PNG in and out, min of ${repeat} runs after a warm-up, float32 and int8 engines alternating`);
  printTable(
    [
      'target',
      'tier',
      'input',
      'tiles',
      'float32 network',
      'ms/out MP',
      'int8 network',
      'ms/out MP',
      'int8 / float32',
      'float32 vs fast',
      'int8 vs float32 fast',
    ],
    rows,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
