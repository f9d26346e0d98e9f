// Tiers: what a job costs end to end in the engine (decode, tiles, self-ensemble where the registry asks for it,
// encode) for every quality tier x target, on one PNG input, in one run, with each tier's cost as a ratio to `fast`
// at the same target. Usage: nice -n 10 node bench/engine/run.js tiers [--size 384] [--repeat 2]
//        [--registry file.json] [--tiers fast,balanced,best] [--targets 2k,3k,4k]
import sharp from 'sharp';
import type { QualityTier, Target } from '@upscaler/contracts';
import { createEngine } from '@upscaler/engine';
import { noiseImage } from '../../libs/engine/test/onnx-helpers';
import { arg } from './args';
import { machineLine, printTable } from './table';

async function main(): Promise<void> {
  const size = Number(arg('size', '384'));
  const repeat = Number(arg('repeat', '2'));
  const tiers = arg('tiers', 'fast,balanced,best').split(',') as QualityTier[];
  const targets = arg('targets', '2k,3k,4k').split(',') as Target[];
  const registry = arg('registry', '') || undefined;
  const engine = await createEngine({ registry });
  const input = await sharp(Buffer.from(Uint8Array.from(noiseImage(size, size, 7))), { raw: { width: size, height: size, channels: 3 } })
    .png()
    .toBuffer();
  console.log(machineLine());
  const rows: (string | number)[][] = [];
  try {
    for (const target of targets) {
      let fastMs = NaN;
      for (const quality of tiers) {
        const run = () => engine.upscale({ input, target, format: 'png', quality });
        const first = await run(); // warm-up: session creation, arena growth
        let ms = Infinity;
        for (let i = 0; i < repeat; i++) {
          const t = performance.now();
          await run();
          ms = Math.min(ms, performance.now() - t);
        }
        const outMp = (first.width * first.height) / 1e6;
        if (quality === 'fast') fastMs = ms;
        rows.push([
          target,
          quality,
          first.network,
          `${size}x${size}`,
          first.tiles,
          (ms / outMp).toFixed(0),
          Number.isNaN(fastMs) ? '-' : `${(ms / fastMs).toFixed(1)}x`,
        ]);
        console.error(`done ${target} ${quality}`);
      }
    }
  } finally {
    await engine.close();
  }
  console.log(`engine.upscale, PNG in and out, min of ${repeat} runs after a warm-up`);
  printTable(['target', 'tier', 'network', 'input', 'tiles', 'ms per output MP', 'vs fast'], rows);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
