// Quality: PSNR / SSIM on Y (BT.601) with the standard protocol (modcrop to the scale, MATLAB bicubic downscale
// with antialiasing, rounded to 8 bits, `scale` pixels shaved) on Set5, Set14 and BSD100, for every network x
// scale and for bicubic, with published rows beside. The harness is trusted only if its bicubic row matches the
// published one within 0.05 dB (checked and printed).
// Usage: nice -n 10 node bench/engine/run.js quality [--sets Set5,Set14,BSD100] [--networks ours,slim,medium,thick]
//        [--scales 2,3,4] [--model path/to/net.onnx:SCALE[:name[:ensemble[=T,T]]]]... [--jpeg Q] [--json out.json]
// "ours" = every network we trained that models/ holds at that scale (models/ours-*-x<scale>.onnx), each followed by
// its int8 version where one ships (models/ours-*-x<scale>-int8.onnx).
// A --model ending in ":ensemble" runs with the engine's eight-way geometric self-ensemble (inference/dihedral.ts);
// ":ensemble=0,6" with only those transforms (a registry entry's selfEnsemble list).
// --jpeg Q: the low-resolution input is JPEG-compressed at quality Q (4:2:0, as cameras and phones save) before
// the upscale, to score networks on the inputs real users upload (the photo variant).
// --json: also writes every row (ours and published) and the harness check as JSON; sr release builds
// the model cards' tables from it.
// --qdq-reference: every session with graph optimizations off, so an int8 (QDQ) file runs as written:
// DequantizeLinear, float Conv, QuantizeLinear: the int8 products summed in float32 (sr qat's model's PSNR to about
// 0.001 dB) on a CPU without an int8 dot product, where the fused QLinearConv's AVX2 kernel saturates 16-bit sums
// (libs/engine/src/registry/precision.ts); sr int8-card passes it there. Results only: it is slow.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { DIHEDRAL_TRANSFORMS, imresizeBicubic, modcrop, scoreY, selfEnsemble, type Plane } from '@upscaler/engine';
import { MODELS_DIR } from '../../libs/engine/test/onnx-helpers';
import { arg, args } from './args';
import { PUBLISHED } from './published';
import { machineLine, printTable } from './table';

const DATASETS = join(__dirname, '..', '..', '..', 'shared', 'datasets');

async function loadHr(path: string): Promise<Plane> {
  // Keep single-band images single-band (sharp would otherwise hand them back as sRGB).
  const gray = (await sharp(path).metadata()).channels === 1;
  const img = gray ? sharp(path).extractChannel(0) : sharp(path);
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data: new Uint8Array(data) };
}

/** The image as a camera would save it: JPEG at quality q with 4:2:0 chroma, decoded back (gray stays gray). */
async function jpegRoundTrip(p: Plane, quality: number): Promise<Plane> {
  const raw = { width: p.width, height: p.height, channels: p.channels as 1 | 3 };
  const jpg = await sharp(Buffer.from(p.data), { raw }).jpeg({ quality, chromaSubsampling: '4:2:0' }).toBuffer();
  const dec = p.channels === 1 ? sharp(jpg).extractChannel(0) : sharp(jpg).removeAlpha();
  const { data, info } = await dec.raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data: new Uint8Array(data) };
}

async function runNetwork(session: ort.InferenceSession, lr: Plane, scale: number, ensemble?: readonly number[]): Promise<Plane> {
  const n = lr.width * lr.height;
  const planar = new Float32Array(3 * n);
  const c = lr.channels;
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) planar[k * n + i] = lr.data[i * c + (c >= 3 ? k : 0)];
  const once = async (p: Float32Array, h: number, w: number) =>
    (await session.run({ input: new ort.Tensor('float32', p, [1, 3, h, w]) })).output.data as Float32Array;
  // The engine's own self-ensemble (inference/dihedral.ts), on the whole image.
  const o = ensemble ? await selfEnsemble(once, planar, lr.height, lr.width, scale, ensemble) : await once(planar, lr.height, lr.width);
  const m = n * scale * scale;
  if (c === 1) {
    // Gray in, gray out, as the engine does (tile-runner.ts): BT.601 luma of the network's RGB.
    const gray = new Uint8ClampedArray(m);
    for (let i = 0; i < m; i++) gray[i] = 0.299 * o[i] + 0.587 * o[m + i] + 0.114 * o[2 * m + i];
    return { width: lr.width * scale, height: lr.height * scale, channels: 1, data: new Uint8Array(gray.buffer) };
  }
  const data = new Uint8ClampedArray(3 * m);
  for (let i = 0; i < m; i++) for (let k = 0; k < 3; k++) data[i * 3 + k] = o[k * m + i];
  return { width: lr.width * scale, height: lr.height * scale, channels: 3, data: new Uint8Array(data.buffer) };
}

export interface Candidate {
  name: string;
  scale: number;
  path?: string;
  /** Run with the engine's self-ensemble over these transforms (a registry entry's selfEnsemble). */
  ensemble?: readonly number[];
}

async function main(): Promise<void> {
  const sets = arg('sets', 'Set5,Set14,BSD100').split(',');
  const networks = arg('networks', 'ours,slim,medium,thick').split(',').filter(Boolean);
  const jpeg = arg('jpeg', '') ? Number(arg('jpeg', '')) : undefined;
  const scales = arg('scales', '2,3,4').split(',').map(Number);
  const candidates: Candidate[] = [];
  for (const s of scales) {
    candidates.push({ name: 'bicubic', scale: s });
    for (const n of networks) {
      if (n === 'ours') {
        for (const f of readdirSync(MODELS_DIR)
          .filter((x) => x.startsWith('ours-') && x.endsWith(`-x${s}.onnx`))
          .sort()) {
          candidates.push({ name: f.replace(`-x${s}.onnx`, ''), scale: s, path: join(MODELS_DIR, f) });
          // Its int8 version, where one ships, printed beside it.
          const int8 = f.replace(/\.onnx$/, '-int8.onnx');
          if (existsSync(join(MODELS_DIR, int8)))
            candidates.push({ name: `${f.replace(`-x${s}.onnx`, '')} int8`, scale: s, path: join(MODELS_DIR, int8) });
        }
      } else candidates.push({ name: `esrgan-${n}`, scale: s, path: join(MODELS_DIR, `esrgan-${n}-x${s}.onnx`) });
    }
  }
  for (const m of args('model')) {
    const [path, s, name, mode] = m.split(':');
    if (mode !== undefined && !/^ensemble(=\d(,\d)*)?$/.test(mode))
      throw new Error(`--model ${m}: the 4th field can only be "ensemble" or "ensemble=T,T..."`);
    const ensemble = mode === 'ensemble' ? DIHEDRAL_TRANSFORMS : mode?.slice('ensemble='.length).split(',').map(Number);
    candidates.push({ name: name ?? path, scale: Number(s), path, ensemble });
  }
  const graphOptimizationLevel = process.argv.includes('--qdq-reference') ? 'disabled' : 'all';
  console.log(machineLine());
  console.log(
    `sets ${sets.join(',')}; scales ${scales.join(',')}; input ${jpeg ? `JPEG q${jpeg} 4:2:0` : 'clean (8-bit)'}; graph optimizations ${graphOptimizationLevel}; candidates ${[...new Set(candidates.map((c) => c.name))].join(', ')}`,
  );
  const results = new Map<string, { psnr: number; ssim: number; n: number }>();
  const key = (c: Candidate, set: string) => `${c.name}|${c.scale}|${set}`;
  for (const c of candidates) {
    const session = c.path ? await ort.InferenceSession.create(c.path, { graphOptimizationLevel }) : undefined;
    for (const set of sets) {
      const dir = join(DATASETS, set);
      const files = readdirSync(dir)
        .filter((f) => f.endsWith('.png'))
        .sort();
      let psnr = 0;
      let ssim = 0;
      for (const f of files) {
        const hr = modcrop(await loadHr(join(dir, f)), c.scale);
        const lr = jpeg ? await jpegRoundTrip(imresizeBicubic(hr, 1 / c.scale), jpeg) : imresizeBicubic(hr, 1 / c.scale);
        const sr = session ? await runNetwork(session, lr, c.scale, c.ensemble) : imresizeBicubic(lr, c.scale);
        const s = scoreY(sr, hr, c.scale);
        psnr += s.psnr;
        ssim += s.ssim;
      }
      results.set(key(c, set), { psnr: psnr / files.length, ssim: ssim / files.length, n: files.length });
      console.error(`${c.name} x${c.scale} ${set}: ${(psnr / files.length).toFixed(2)}`);
    }
    await session?.release();
  }
  const fmt = (v?: { psnr: number; ssim: number }) => (v ? `${v.psnr.toFixed(2)} / ${v.ssim.toFixed(4)}` : '-');
  const names = [...new Set(candidates.map((c) => c.name))];
  const rows: string[][] = [];
  for (const s of scales) {
    for (const name of names) {
      const c = candidates.find((x) => x.name === name && x.scale === s);
      if (c) rows.push([`x${s}`, name === 'bicubic' ? 'bicubic (ours)' : name, ...sets.map((set) => fmt(results.get(key(c, set))))]);
    }
    for (const ref of Object.keys(PUBLISHED)) {
      rows.push([
        `x${s}`,
        `${ref} (published)`,
        ...sets.map((set) => {
          const p = PUBLISHED[ref][set]?.[s];
          return p ? `${p[0].toFixed(2)} / ${p[1].toFixed(4)}` : '-';
        }),
      ]);
    }
  }
  printTable(['scale', 'method', ...sets.map((s) => `${s} PSNR / SSIM`)], rows);
  let ok = true;
  const checks: { set: string; scale: number; ours: number; published: number; ok: boolean }[] = [];
  for (const s of scales)
    for (const set of sets) {
      if (jpeg) continue; // published bicubic rows are for clean inputs
      const ours = results.get(`bicubic|${s}|${set}`);
      const pub = PUBLISHED.bicubic[set]?.[s];
      if (!ours || !pub) continue;
      const d = ours.psnr - pub[0];
      const pass = Math.abs(d) <= 0.05;
      ok &&= pass;
      checks.push({ set, scale: s, ours: ours.psnr, published: pub[0], ok: pass });
      console.log(
        `harness check ${set} x${s}: bicubic ${ours.psnr.toFixed(3)} vs published ${pub[0]} (${d >= 0 ? '+' : ''}${d.toFixed(3)} dB) ${pass ? 'OK' : 'OUTSIDE 0.05 dB'}`,
      );
    }
  const json = arg('json', '');
  if (json) {
    const rowsOut = candidates.flatMap((c) =>
      sets.map((set) => ({ name: c.name, path: c.path ?? null, scale: c.scale, set, ...results.get(key(c, set)) })),
    );
    const published = Object.entries(PUBLISHED).flatMap(([name, bySet]) =>
      scales.flatMap((s) =>
        sets.flatMap((set) => (bySet[set]?.[s] ? [{ name, scale: s, set, psnr: bySet[set][s][0], ssim: bySet[set][s][1] }] : [])),
      ),
    );
    const input = jpeg ? `JPEG q${jpeg} 4:2:0` : 'clean';
    writeFileSync(
      json,
      JSON.stringify({ machine: machineLine(), input, graphOptimizationLevel, rows: rowsOut, published, harnessCheck: checks }, null, 1) +
        '\n',
    );
  }
  if (!ok) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
