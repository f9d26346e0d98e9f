/**
 * Where the illustration networks win (docs/benchmarks.md "Illustrations"), on the set of set.ts.
 *
 * Fidelity tiers: Y-PSNR / SSIM with the engine's quality harness (bench/engine/quality.ts's protocol: modcrop to the
 * scale, MATLAB bicubic downscale with antialiasing, 8 bits, `scale` pixels shaved) of each tier's network against
 * the illustration networks at 2x, 3x and 4x. Every upscale goes through the engine the processor runs (tiles,
 * precision, the outscale resize of an x4 network to 2x and 3x), from the low-resolution image as a PNG.
 * Sharp tier: x4plus against x4plus-anime (and animevideov3 beside them) at 4k on each image bicubic-downscaled by 2,
 * the outputs written for bench/illustration/judge.py (no-reference measures and side-by-side sheets).
 *
 *   node bench/illustration/run.js measure [out dir]   (default bench/illustration/out)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { SCALE_OF_TARGET, type Target } from '@upscaler/contracts';
import {
  createEngine,
  DEFAULT_REGISTRY,
  imresizeBicubic,
  modcrop,
  scoreY,
  type NetworkRegistry,
  type Plane,
  type UpscaleEngine,
} from '@upscaler/engine';
import { machineLine, printTable } from '../engine/table';
import { bicubicX4 } from '../gallery/bicubic';
import { CASES, render } from './set';

const TARGETS: Target[] = ['2k', '3k', '4k'];

/** A registry whose `fast` tier runs the given networks (2x, 3x, 4x): how the bench runs one candidate. */
function candidate(ids: [string, string, string]): NetworkRegistry {
  return { ...DEFAULT_REGISTRY, tiers: { ...DEFAULT_REGISTRY.tiers, fast: { 2: ids[0], 3: ids[1], 4: ids[2] } }, jpegVariants: {} };
}

const CANDIDATES: { name: string; registry: NetworkRegistry; quality: 'fast' | 'balanced' | 'best' | 'sharp' }[] = [
  { name: 'fast', registry: DEFAULT_REGISTRY, quality: 'fast' },
  { name: 'balanced', registry: DEFAULT_REGISTRY, quality: 'balanced' },
  { name: 'best', registry: DEFAULT_REGISTRY, quality: 'best' },
  {
    name: 'animevideov3',
    registry: candidate(['realesr-animevideov3-to-x2', 'realesr-animevideov3-to-x3', 'realesr-animevideov3-x4']),
    quality: 'fast',
  },
  {
    name: 'x4plus-anime',
    registry: candidate(['realesrgan-x4plus-anime-to-x2', 'realesrgan-x4plus-anime-to-x3', 'realesrgan-x4plus-anime']),
    quality: 'fast',
  },
  { name: 'x4plus (sharp)', registry: DEFAULT_REGISTRY, quality: 'sharp' },
];

async function toPlane(png: Buffer): Promise<Plane> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data: new Uint8Array(data) };
}

const toPng = (p: Plane) =>
  sharp(Buffer.from(p.data), { raw: { width: p.width, height: p.height, channels: p.channels as 3 } })
    .png()
    .toBuffer();

async function main(out: string): Promise<void> {
  mkdirSync(join(out, 'inputs'), { recursive: true });
  mkdirSync(join(out, 'outputs'), { recursive: true });
  console.log(machineLine());
  const hrs = new Map<string, Plane>();
  for (const c of CASES) {
    const png = await render(c);
    writeFileSync(join(out, 'inputs', `${c.name}-hr.png`), png);
    hrs.set(c.name, await toPlane(png));
  }

  // --- fidelity: Y-PSNR per candidate, image and scale
  type Row = { candidate: string; network: string; image: string; scale: number; psnr: number; ssim: number; ms: number };
  const rows: Row[] = [];
  for (const cand of CANDIDATES) {
    const engine = await createEngine({ registry: cand.registry });
    try {
      for (const c of CASES) {
        for (const target of TARGETS) {
          const s = SCALE_OF_TARGET[target];
          const hr = modcrop(hrs.get(c.name)!, s);
          const lr = imresizeBicubic(hr, 1 / s);
          const r = await engine.upscale({ input: await toPng(lr), target, format: 'png', quality: cand.quality });
          const { psnr, ssim } = scoreY(await toPlane(r.output), hr, s);
          rows.push({ candidate: cand.name, network: r.network, image: c.name, scale: s, psnr, ssim, ms: r.engineMs });
          console.error(`${cand.name} ${c.name} x${s}: ${r.network} ${psnr.toFixed(2)} dB ${r.engineMs} ms`);
        }
      }
    } finally {
      await engine.close();
    }
  }
  for (const c of CASES) {
    for (const s of [2, 3, 4]) {
      const hr = modcrop(hrs.get(c.name)!, s);
      const { psnr, ssim } = scoreY(imresizeBicubic(imresizeBicubic(hr, 1 / s), s), hr, s);
      rows.push({ candidate: 'bicubic', network: 'bicubic', image: c.name, scale: s, psnr, ssim, ms: 0 });
    }
  }
  writeFileSync(join(out, 'fidelity.json'), JSON.stringify(rows, null, 2) + '\n');
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const names = ['bicubic', ...CANDIDATES.map((c) => c.name)];
  const networksOf = (name: string, s: number) =>
    [...new Set(rows.filter((r) => r.candidate === name && r.scale === s).map((r) => r.network))].join(', ');
  console.log(`\nY-PSNR / SSIM, mean over the ${CASES.length} images of the illustration set (and mean engine ms per image):`);
  printTable(
    ['method', ...[2, 3, 4].map((s) => `x${s} (network)`)],
    names.map((name) => [
      name,
      ...[2, 3, 4].map((s) => {
        const sel = rows.filter((r) => r.candidate === name && r.scale === s);
        const ms = name === 'bicubic' ? '' : `, ${Math.round(mean(sel.map((r) => r.ms)))} ms`;
        return `${mean(sel.map((r) => r.psnr)).toFixed(2)} / ${mean(sel.map((r) => r.ssim)).toFixed(4)} (${networksOf(name, s)}${ms})`;
      }),
    ]),
  );
  console.log('\nY-PSNR per image:');
  for (const s of [2, 3, 4]) {
    printTable(
      [`x${s}`, ...CASES.map((c) => c.name)],
      names.map((name) => [
        name,
        ...CASES.map((c) => rows.find((r) => r.candidate === name && r.scale === s && r.image === c.name)!.psnr.toFixed(2)),
      ]),
    );
  }

  // --- sharp: the three generative / illustration networks at 4k on each image downscaled by 2 (bicubic, MATLAB)
  const sharpRuns: { name: string; method: string; network: string; ms: number; width: number; height: number }[] = [];
  const inputs: { name: string; file: string; kind: string; terms: string }[] = [];
  for (const c of CASES) {
    const lr = await toPng(imresizeBicubic(hrs.get(c.name)!, 1 / 2));
    writeFileSync(join(out, 'inputs', `${c.name}.png`), lr);
    inputs.push({ name: c.name, file: `${c.name}.png`, kind: c.kind, terms: 'ours (drawn by bench/illustration/set.ts, MIT)' });
  }
  const SHEET: { method: string; registry: NetworkRegistry; quality: 'balanced' | 'sharp' | 'fast' }[] = [
    { method: 'balanced', registry: DEFAULT_REGISTRY, quality: 'balanced' },
    { method: 'x4plus', registry: DEFAULT_REGISTRY, quality: 'sharp' },
    { method: 'x4plus-anime', registry: CANDIDATES.find((c) => c.name === 'x4plus-anime')!.registry, quality: 'fast' },
    { method: 'animevideov3', registry: CANDIDATES.find((c) => c.name === 'animevideov3')!.registry, quality: 'fast' },
  ];
  for (const m of SHEET) {
    const engine: UpscaleEngine = await createEngine({ registry: m.registry });
    try {
      for (const c of CASES) {
        const input = await toPng(imresizeBicubic(hrs.get(c.name)!, 1 / 2));
        const r = await engine.upscale({ input, target: '4k', format: 'png', quality: m.quality });
        writeFileSync(join(out, 'outputs', `${c.name}-${m.method}.png`), r.output);
        sharpRuns.push({ name: c.name, method: m.method, network: r.network, ms: r.engineMs, width: r.width, height: r.height });
        console.error(`sheet ${m.method} ${c.name}: ${r.network} ${r.width}x${r.height} ${r.engineMs} ms`);
      }
    } finally {
      await engine.close();
    }
  }
  for (const c of CASES) {
    const bicubic = await bicubicX4(await toPng(imresizeBicubic(hrs.get(c.name)!, 1 / 2)));
    sharpRuns.push({ name: c.name, method: 'bicubic', network: 'bicubic', ms: bicubic.ms, width: bicubic.width, height: bicubic.height });
    writeFileSync(join(out, 'outputs', `${c.name}-bicubic.png`), bicubic.png);
  }
  writeFileSync(join(out, 'inputs.json'), JSON.stringify(inputs, null, 2) + '\n');
  writeFileSync(join(out, 'upscales.json'), JSON.stringify(sharpRuns, null, 2) + '\n');
}

void main(process.argv[2] ?? 'bench/illustration/out').catch((e) => {
  console.error(e);
  process.exit(1);
});
