// Peak memory of the largest job the default limits accept: a ~10 MB, 25-megapixel JPEG upscaled at 2k (the
// largest target it is accepted at under DEFAULT_MAX_OUTPUT_PIXELS) with the default tier, PNG output.
// Usage: nice -n 10 node bench/engine/run.js memory [--width 6124 --height 4082] [--quality fast] [--format png] [--target 2k] [--jpeg-quality 95]
//        [--precision auto|float32|int8]
// (--target: run that target instead of the largest accepted one, to measure one network's tile working set)
import sharp from 'sharp';
import { createEngine, type PrecisionSetting } from '@upscaler/engine';
import { arg } from './args';
import { machineLine } from './table';

async function main(): Promise<void> {
  const width = Number(arg('width', '6124'));
  const height = Number(arg('height', '4082'));
  const quality = arg('quality', 'fast') as 'fast';
  const format = arg('format', 'png') as 'png';
  // A photo-like input: a benchmark image enlarged to 25 MP plus sensor-like noise, saved as JPEG (quality 95 by
  // default: 11.9 MB at 25 MP, above the 10 MB upload limit).
  const base = await sharp('../shared/datasets/BSD100/img_012.png'.replace('../shared', `${__dirname}/../../../shared`))
    .resize(width, height, { kernel: 'lanczos3', fit: 'fill' })
    .raw()
    .toBuffer();
  const noise = await sharp({
    create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 9 } },
  })
    .raw()
    .toBuffer();
  for (let i = 0; i < base.length; i++) base[i] = Math.max(0, Math.min(255, base[i] + noise[i] - 128));
  const input = await sharp(base, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: Number(arg('jpeg-quality', '95')) })
    .toBuffer();
  const engine = await createEngine({ precision: arg('precision', 'auto') as PrecisionSetting });
  const probe = await engine.probe(input);
  const targets = engine.acceptedTargets(probe.width, probe.height);
  const target = (arg('target', '') || targets[targets.length - 1]) as (typeof targets)[number];
  if (!targets.includes(target)) throw new Error(`${target} is not accepted for ${probe.width}x${probe.height}`);
  if (global.gc) global.gc();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const started = Date.now();
  const r = await engine.upscale({ input, target, format, quality });
  clearInterval(sampler);
  const maxRss = process.resourceUsage().maxRSS * 1024;
  console.log(machineLine());
  console.log(
    `input: ${width}x${height} (${((width * height) / 1e6).toFixed(1)} MP) JPEG, ${(input.length / 1e6).toFixed(1)} MB; accepted targets ${targets.join(',')}; ran ${target} ${quality} -> ${format}`,
  );
  console.log(
    `output: ${r.width}x${r.height} (${((r.width * r.height) / 1e6).toFixed(1)} MP), ${(r.output.length / 1e6).toFixed(1)} MB, ${r.tiles} tiles, network ${r.network}`,
  );
  console.log(`time: ${((Date.now() - started) / 1000).toFixed(1)} s (engine ${(r.engineMs / 1000).toFixed(1)} s)`);
  console.log(
    `RSS before job: ${(before / 2 ** 20).toFixed(0)} MiB; peak RSS sampled during job: ${(peak / 2 ** 20).toFixed(0)} MiB; process maxRSS: ${(maxRss / 2 ** 20).toFixed(0)} MiB`,
  );
  await engine.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
