/**
 * The gallery's upscales (bench/gallery/run.sh): each input of prepare.py at x4 (target 4k) by bicubic (sharp's
 * cubic kernel, what a browser or an editor does), by the `balanced` tier (our fidelity network) and by the `sharp`
 * tier (Real-ESRGAN x4plus), through the engine the processor runs, at the precision it picks on this machine.
 * Writes <out>/outputs/<name>-<method>.png and <out>/upscales.json (network, engine ms, output size).
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { QualityTier } from '@upscaler/contracts';
import { createEngine, DEFAULT_REGISTRY } from '@upscaler/engine';
import { bicubicX4 } from './bicubic';

interface Case {
  name: string;
  file: string;
}

async function main(out: string): Promise<void> {
  const cases = JSON.parse(readFileSync(join(out, 'inputs.json'), 'utf8')) as Case[];
  mkdirSync(join(out, 'outputs'), { recursive: true });
  const engine = await createEngine({ registry: DEFAULT_REGISTRY });
  console.log(
    `${cpus()[0]?.model} x${cpus().length}, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, precision ${engine.describe().precision}`,
  );
  const rows: Array<{ name: string; method: string; network: string; ms: number; width: number; height: number }> = [];
  try {
    for (const c of cases) {
      const input = readFileSync(join(out, 'inputs', c.file));
      const bicubic = await bicubicX4(input);
      rows.push({ name: c.name, method: 'bicubic', network: 'bicubic', ms: bicubic.ms, width: bicubic.width, height: bicubic.height });
      writeFileSync(join(out, 'outputs', `${c.name}-bicubic.png`), bicubic.png);
      for (const quality of ['balanced', 'sharp'] as QualityTier[]) {
        const r = await engine.upscale({ input, target: '4k', format: 'png', quality });
        writeFileSync(join(out, 'outputs', `${c.name}-${quality}.png`), r.output);
        rows.push({ name: c.name, method: quality, network: r.network, ms: r.engineMs, width: r.width, height: r.height });
        console.log(`${c.name} ${quality}: ${r.network} ${r.width}x${r.height} in ${r.engineMs} ms`);
      }
    }
  } finally {
    await engine.close();
  }
  writeFileSync(join(out, 'upscales.json'), JSON.stringify(rows, null, 2) + '\n');
}

void main(process.argv[2] ?? 'bench/gallery/out').catch((e) => {
  console.error(e);
  process.exit(1);
});
