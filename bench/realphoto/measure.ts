/**
 * Photos as people send them (docs/benchmarks.md "Real photos"): every fidelity tier, through the engine the processor
 * runs, on held-out licensed photos (training/data/fetch_licensed.py, split holdout: never trained on) and on Set14,
 * from low-resolution inputs that are clean (PNG) or saved as JPEG at quality 95, 90, 85 and 60 (4:2:0 chroma, as
 * cameras and phones save), at x2 (target 2k) and x4 (4k).
 *
 * Protocol (the engine harness's, bench/engine/quality.ts): modcrop to the scale, MATLAB bicubic downscale with
 * antialiasing, 8 bits, then the input's JPEG round trip; Y-PSNR and SSIM (BT.601, `scale` pixels shaved) against the
 * original. Per set, scale, input and method: the mean and the worst image's gain in Y-PSNR over bicubic (MATLAB
 * bicubic upscaling of the same input, what the papers' baseline rows are), the mean SSIM, and the detail in the
 * original's flat areas (flat-detail.ts: the original's own grain, less where a method smooths, more where it turns
 * compression noise into specks). Holdout photos are cut into crops (`--crop` pixels, at the centres of a 2x2 grid)
 * so a run takes minutes. The gallery: for every scale and input, the image where a tier falls furthest below
 * bicubic, a crop of the place where it does worst, side by side (original, bicubic, each tier; nearest-neighbour
 * 3x so pixels can be seen).
 *
 *   nice -n 10 node bench/realphoto/run.js [--sets holdout,Set14] [--scales 2,4] [--inputs clean,95,90,85,60]
 *     [--tiers fast,balanced,best] [--crop 384] [--limit N] [--json out.json] [--gallery docs/gallery/realphoto]
 *     [--candidate NAME=TIER@REGISTRY.json ...]
 *
 * `--candidate` (repeatable) adds a column beside today's tiers in the same run: TIER of the engine built from that
 * registry file (the UPSCALE_ENGINE_REGISTRY shape; network files may be absolute paths), e.g. a retrained network
 * before it replaces a tier's.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import type { QualityTier, Target } from '@upscaler/contracts';
import { createEngine, DEFAULT_REGISTRY, imresizeBicubic, modcrop, scoreY, type Plane, type UpscaleEngine } from '@upscaler/engine';
import { arg, args } from '../engine/args';
import { machineLine, printTable } from '../engine/table';
import { flatBlocks, flatDetail } from './flat-detail';
import { galleryCrop, writeSheet } from './gallery';

const DATASETS = join(__dirname, '..', '..', '..', 'shared', 'datasets');
const LICENSED = process.env.SR_LICENSED_DIR ?? join(homedir(), '.cache', 'upscaler', 'datasets', 'licensed');
const TARGET_OF: Record<number, Target> = { 2: '2k', 3: '3k', 4: '4k' };

interface TestImage {
  set: string;
  name: string;
  hr: Plane;
}

export interface Score {
  image: string;
  psnr: number;
  ssim: number;
  /** Y-PSNR minus bicubic's on the same input. */
  gain: number;
  flat: number | null;
  network: string;
}

async function rgbPlane(input: string | Buffer): Promise<Plane> {
  const { data, info } = await sharp(input).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected RGB, got ${info.channels} channels`);
  return { width: info.width, height: info.height, channels: 3, data: new Uint8Array(data) };
}

function crop(p: Plane, x: number, y: number, w: number, h: number): Plane {
  const out = new Uint8Array(w * h * p.channels);
  for (let j = 0; j < h; j++)
    out.set(p.data.subarray(((y + j) * p.width + x) * p.channels, ((y + j) * p.width + x + w) * p.channels), j * w * p.channels);
  return { width: w, height: h, channels: p.channels, data: out };
}

/** The held-out photos, each cut into `size`-pixel crops at the centres of a 2x2 grid (a smaller photo whole). */
async function holdoutImages(size: number): Promise<TestImage[]> {
  const dir = join(LICENSED, 'holdout');
  if (!existsSync(dir)) {
    console.error(`no held-out photos in ${dir}: run python3 training/data/fetch_licensed.py (or set SR_LICENSED_DIR)`);
    return [];
  }
  const images: TestImage[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.png'))
    .sort()) {
    const full = await rgbPlane(join(dir, file));
    const stem = basename(file, '.png');
    if (full.width < 2 * size || full.height < 2 * size) {
      images.push({ set: 'holdout', name: stem, hr: full });
      continue;
    }
    for (const fy of [0.25, 0.75]) {
      for (const fx of [0.25, 0.75]) {
        const x = Math.round(full.width * fx - size / 2);
        const y = Math.round(full.height * fy - size / 2);
        images.push({ set: 'holdout', name: `${stem}@${x},${y}`, hr: crop(full, x, y, size, size) });
      }
    }
  }
  return images;
}

async function setImages(set: string): Promise<TestImage[]> {
  const dir = join(DATASETS, set);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.png'))
    .sort();
  return Promise.all(files.map(async (f) => ({ set, name: basename(f, '.png'), hr: await rgbPlane(join(dir, f)) })));
}

async function encodeInput(lr: Plane, input: string): Promise<Buffer> {
  const raw = { width: lr.width, height: lr.height, channels: 3 as const };
  if (input === 'clean') return sharp(Buffer.from(lr.data), { raw }).png().toBuffer();
  return sharp(Buffer.from(lr.data), { raw })
    .jpeg({ quality: Number(input), chromaSubsampling: '4:2:0' })
    .toBuffer();
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A method of the table: a tier of an engine (today's, or a candidate registry's). */
interface Method {
  name: string;
  tier: QualityTier;
  engine: UpscaleEngine;
}

/** `--candidate NAME=TIER@REGISTRY.json`: its own engine, built from that registry. */
async function candidate(spec: string): Promise<Method> {
  const m = /^([\w.-]+)=(\w+)@(.+)$/.exec(spec);
  if (!m) throw new Error(`--candidate ${spec}: expected NAME=TIER@REGISTRY.json`);
  return { name: m[1], tier: m[2] as QualityTier, engine: await createEngine({ registry: m[3] }) };
}

async function main(): Promise<void> {
  const sets = arg('sets', 'holdout,Set14').split(',');
  const scales = arg('scales', '2,4').split(',').map(Number);
  const inputs = arg('inputs', 'clean,95,90,85,60').split(',');
  const tiers = arg('tiers', 'fast,balanced,best').split(',') as QualityTier[];
  const size = Number(arg('crop', '384'));
  const limit = Number(arg('limit', '0'));
  const json = arg('json', '');
  const galleryDir = arg('gallery', '');
  console.log(`realphoto: ${machineLine()}`);

  const images: TestImage[] = [];
  for (const set of sets) {
    const found = set === 'holdout' ? await holdoutImages(size) : await setImages(set);
    images.push(...(limit > 0 ? found.slice(0, limit) : found));
  }
  const engine: UpscaleEngine = await createEngine({ registry: DEFAULT_REGISTRY });
  const methods: Method[] = [
    ...tiers.map((tier) => ({ name: tier, tier, engine })),
    ...(await Promise.all(args('candidate').map(candidate))),
  ];
  console.log(
    `engine precision: ${engine.describe().precision}; ${images.length} images; methods ${methods.map((m) => m.name).join(', ')}`,
  );
  /** set|scale|input -> method -> scores */
  const results = new Map<string, Map<string, Score[]>>();
  const sheets: Array<{ scale: number; input: string; image: TestImage; outputs: Map<string, Plane>; worst: number }> = [];
  const started = Date.now();
  try {
    for (const scale of scales) {
      for (const img of images) {
        const hr = modcrop(img.hr, scale);
        const lr = imresizeBicubic(hr, 1 / scale);
        const border = scale;
        const blocks = flatBlocks(hr, border);
        for (const input of inputs) {
          const key = `${img.set}|${scale}|${input}`;
          const byMethod = results.get(key) ?? new Map<string, Score[]>();
          results.set(key, byMethod);
          const push = (method: string, s: Score) => byMethod.set(method, [...(byMethod.get(method) ?? []), s]);
          const bytes = await encodeInput(lr, input);
          const bicubic = imresizeBicubic(await rgbPlane(bytes), scale);
          const base = scoreY(bicubic, hr, scale);
          push('bicubic', {
            image: img.name,
            psnr: base.psnr,
            ssim: base.ssim,
            gain: 0,
            flat: flatDetail(bicubic, blocks),
            network: 'bicubic',
          });
          push('original', { image: img.name, psnr: Infinity, ssim: 1, gain: 0, flat: flatDetail(hr, blocks), network: 'original' });
          const outputs = new Map<string, Plane>([
            ['original', hr],
            ['bicubic', bicubic],
          ]);
          let worst = Infinity;
          for (const method of methods) {
            const r = await method.engine.upscale({ input: bytes, target: TARGET_OF[scale], format: 'png', quality: method.tier });
            const out = await rgbPlane(r.output);
            const s = scoreY(out, hr, scale);
            push(method.name, {
              image: img.name,
              psnr: s.psnr,
              ssim: s.ssim,
              gain: s.psnr - base.psnr,
              flat: flatDetail(out, blocks),
              network: r.network,
            });
            outputs.set(method.name, out);
            worst = Math.min(worst, s.psnr - base.psnr);
          }
          const prev = sheets.find((c) => c.scale === scale && c.input === input);
          if (galleryDir && (!prev || worst < prev.worst)) {
            if (prev) sheets.splice(sheets.indexOf(prev), 1);
            sheets.push({ scale, input, image: img, outputs, worst });
          }
        }
      }
      console.log(`x${scale} done after ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  } finally {
    for (const e of new Set(methods.map((m) => m.engine))) await e.close();
  }

  for (const set of sets) {
    for (const scale of scales) {
      const rows: (string | number)[][] = [];
      for (const input of inputs) {
        const byMethod = results.get(`${set}|${scale}|${input}`);
        if (!byMethod) continue;
        for (const [method, scores] of byMethod) {
          const flats = scores.map((s) => s.flat).filter((f): f is number => f !== null);
          const flat = flats.length ? mean(flats).toFixed(2) : '–';
          if (method === 'original') {
            rows.push([input, 'original', '', '', '', flat, '']);
            continue;
          }
          const worst = scores.reduce((a, b) => (b.gain < a.gain ? b : a));
          const networks = [...new Set(scores.map((s) => s.network))].join(', ');
          rows.push([
            input,
            method,
            method === 'bicubic'
              ? mean(scores.map((s) => s.psnr)).toFixed(2)
              : (mean(scores.map((s) => s.gain)) >= 0 ? '+' : '') + mean(scores.map((s) => s.gain)).toFixed(2),
            method === 'bicubic' ? '' : `${worst.gain >= 0 ? '+' : ''}${worst.gain.toFixed(2)} (${worst.image})`,
            mean(scores.map((s) => s.ssim)).toFixed(4),
            flat,
            method === 'bicubic' ? '' : networks,
          ]);
        }
      }
      console.log(`\n### ${set} x${scale} (${results.get(`${set}|${scale}|${inputs[0]}`)?.get('bicubic')?.length ?? 0} images)\n`);
      printTable(
        ['input', 'method', 'Y-PSNR (bicubic) / mean gain dB', 'worst gain dB (image)', 'SSIM', 'flat-area detail', 'networks'],
        rows,
      );
    }
  }

  if (galleryDir) {
    mkdirSync(galleryDir, { recursive: true });
    for (const s of sheets) {
      const window = galleryCrop(
        s.outputs.get('original')!,
        s.outputs.get('bicubic')!,
        methods.map((m) => s.outputs.get(m.name)!),
      );
      const file = join(galleryDir, `x${s.scale}-${s.input}.jpg`);
      await writeSheet(
        file,
        s.outputs,
        ['original', 'bicubic', ...methods.map((m) => m.name)],
        window,
        `x${s.scale}, input ${s.input === 'clean' ? 'clean' : `JPEG q${s.input}`}: ${s.image.set} ${s.image.name}, worst tier ${s.worst >= 0 ? '+' : ''}${s.worst.toFixed(2)} dB vs bicubic`,
      );
      console.log(`gallery: ${file}`);
    }
  }
  if (json) {
    const out: Record<string, Record<string, Score[]>> = {};
    for (const [k, m] of results) out[k] = Object.fromEntries(m);
    writeFileSync(json, JSON.stringify({ machine: machineLine(), results: out }, (_, v) => (v === Infinity ? null : v), 1) + '\n');
  }
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
