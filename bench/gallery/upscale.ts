/**
 * The gallery's upscales (bench/gallery/run.sh): each input of prepare.py at x4 (target 4k) by bicubic (sharp's
 * cubic kernel, what a browser or an editor does), by the `balanced` tier (our fidelity network) and by the `sharp`
 * tier (Real-ESRGAN x4plus), through the engine the processor runs, at the precision it picks on this machine; with
 * `--student FILE.onnx` (an x4 network and its `sr export` sidecar FILE.onnx.json, e.g. a distilled student of the
 * sharp tier: training/README.md) also by that network, run as the sharp tier would run it (`student`).
 * Writes <out>/outputs/<name>-<method>.png and <out>/upscales.json (network, engine ms, output size).
 * `--methods student` runs only the methods named and keeps the others' outputs and rows from an earlier run (a new
 * student without Real-ESRGAN's minutes again).
 *   node bench/gallery/run.js OUT [--student FILE.onnx] [--methods bicubic,balanced,sharp,student]
 */
import { existsSync, readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { QualityTier } from '@upscaler/contracts';
import { createEngine, DEFAULT_REGISTRY, type NetworkRegistry, type UpscaleEngine } from '@upscaler/engine';
import { arg, args } from '../engine/args';
import { bicubicX4 } from './bicubic';

interface Case {
  name: string;
  file: string;
}

type Row = { name: string; method: string; network: string; ms: number; width: number; height: number };
const METHODS = ['bicubic', 'balanced', 'sharp', 'student'];

/** The built-in registry with the sharp tier's x4 network replaced by `file` (its sidecar gives scale and radius). */
function studentRegistry(file: string): NetworkRegistry {
  const side = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as { scale: number; receptive_radius_lr: number };
  if (side.scale !== 4) throw new Error(`--student: ${file} is x${side.scale}; the gallery upscales x4`);
  return {
    ...DEFAULT_REGISTRY,
    networks: {
      ...DEFAULT_REGISTRY.networks,
      student: { file: resolve(file), scale: 4, receptiveRadius: side.receptive_radius_lr, tile: 256 },
    },
    tiers: { ...DEFAULT_REGISTRY.tiers, sharp: { ...DEFAULT_REGISTRY.tiers.sharp, 4: 'student' } },
  };
}

async function main(out: string, only: string[], studentFile: string | undefined): Promise<void> {
  const cases = JSON.parse(readFileSync(join(out, 'inputs.json'), 'utf8')) as Case[];
  mkdirSync(join(out, 'outputs'), { recursive: true });
  const runs = (method: string) => only.includes(method) && (method !== 'student' || studentFile !== undefined);
  const engine = await createEngine({ registry: DEFAULT_REGISTRY });
  const student = studentFile ? await createEngine({ registry: studentRegistry(studentFile) }) : undefined;
  console.log(
    `${cpus()[0]?.model} x${cpus().length}, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, precision ${engine.describe().precision}`,
  );
  // A partial run keeps the other methods' rows of the earlier one.
  const earlier = join(out, 'upscales.json');
  const kept = only.length < METHODS.length && existsSync(earlier) ? (JSON.parse(readFileSync(earlier, 'utf8')) as Row[]) : [];
  const rows: Row[] = kept.filter((r) => !runs(r.method));
  try {
    for (const c of cases) {
      const input = readFileSync(join(out, 'inputs', c.file));
      if (runs('bicubic')) {
        const bicubic = await bicubicX4(input);
        rows.push({ name: c.name, method: 'bicubic', network: 'bicubic', ms: bicubic.ms, width: bicubic.width, height: bicubic.height });
        writeFileSync(join(out, 'outputs', `${c.name}-bicubic.png`), bicubic.png);
      }
      const passes: Array<[string, UpscaleEngine | undefined, QualityTier]> = [
        ['balanced', engine, 'balanced'],
        ['sharp', engine, 'sharp'],
        ['student', student, 'sharp'],
      ];
      for (const [method, by, quality] of passes) {
        if (!runs(method) || !by) continue;
        const r = await by.upscale({ input, target: '4k', format: 'png', quality });
        writeFileSync(join(out, 'outputs', `${c.name}-${method}.png`), r.output);
        rows.push({ name: c.name, method, network: r.network, ms: r.engineMs, width: r.width, height: r.height });
        console.log(`${c.name} ${method}: ${r.network} ${r.width}x${r.height} in ${r.engineMs} ms`);
      }
    }
  } finally {
    await Promise.all([engine.close(), student?.close()]);
  }
  writeFileSync(join(out, 'upscales.json'), JSON.stringify(rows, null, 2) + '\n');
}

const only = arg('methods', METHODS.join(',')).split(',');
const unknown = only.filter((m) => !METHODS.includes(m));
if (unknown.length > 0) throw new Error(`--methods: unknown ${unknown.join(', ')} (known: ${METHODS.join(', ')})`);
const out = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'bench/gallery/out';
void main(out, only, args('student')[0]).catch((e) => {
  console.error(e);
  process.exit(1);
});
