// The machine's own ceiling for "two processors": the same engine jobs run by one process, then by two processes
// side by side, each engine on one ONNX Runtime thread (as `bench/orchestration --engine-threads 1` runs them).
// No HTTP, no Kafka, no Postgres: whatever two engines lose here against 2x is the hardware's (shared caches,
// memory bandwidth, clocks), not the service's. Compare with the orchestration bench's "vs 1 proc." column.
// Usage: node bench/engine/run.js parallel [--jobs 8] [--size 512] [--target 4k] [--rounds 2]
import { fork } from 'node:child_process';
import { join } from 'node:path';
import sharp from 'sharp';
import { createEngine, type UpscaleRequest } from '@upscaler/engine';
import { arg } from './args';
import { machineLine, printTable } from './table';

const jobs = Number(arg('jobs', '8'));
const size = Number(arg('size', '512'));
const target = arg('target', '4k') as UpscaleRequest['target'];

/** Child: warm up, wait for the parent's go, run `jobs` jobs back to back, report the engine ms of each. */
async function child(): Promise<void> {
  const noise = await sharp({
    create: {
      width: size,
      height: size,
      channels: 3,
      background: { r: 90, g: 120, b: 150 },
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  const engine = await createEngine({ threads: 1 });
  await engine.upscale({ input: noise, target, format: 'png', quality: 'fast' });
  process.send?.({ ready: true });
  const measure = async (): Promise<void> => {
    const engineMs: number[] = [];
    for (let i = 0; i < jobs; i++) engineMs.push((await engine.upscale({ input: noise, target, format: 'png', quality: 'fast' })).engineMs);
    process.send?.({ engineMs });
    await engine.close();
    process.exit(0);
  };
  process.once('message', () => {
    measure().catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
  });
}

async function runSideBySide(processes: number): Promise<{ jobsPerSecond: number; engineMs: number }> {
  const children = Array.from({ length: processes }, () =>
    fork(join(__dirname, 'run.js'), ['parallel', ...process.argv.slice(2), '--child']),
  );
  await Promise.all(children.map((c) => new Promise((resolve) => c.once('message', resolve))));
  const started = performance.now();
  const done = children.map(
    (c) => new Promise<number[]>((resolve) => c.once('message', (m: { engineMs: number[] }) => resolve(m.engineMs))),
  );
  children.forEach((c) => c.send('go'));
  const all = (await Promise.all(done)).flat().sort((a, b) => a - b);
  const seconds = (performance.now() - started) / 1000;
  return { jobsPerSecond: (processes * jobs) / seconds, engineMs: all[Math.floor(all.length / 2)] };
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '2'));
  console.log(machineLine());
  const results: Record<number, { jobsPerSecond: number; engineMs: number }[]> = { 1: [], 2: [] };
  for (let r = 0; r < rounds; r++) for (const p of r % 2 ? [2, 1] : [1, 2]) results[p].push(await runSideBySide(p));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const one = median(results[1].map((x) => x.jobsPerSecond));
  console.log(
    `${jobs} jobs per process of ${size}x${size} at ${target}, quality fast, png; 1 ONNX Runtime thread per engine; median of ${rounds} interleaved rounds`,
  );
  printTable(
    ['engine processes', 'jobs/s', 'vs 1 process', 'engine ms/job (median)'],
    [1, 2].map((p) => {
      const jps = median(results[p].map((x) => x.jobsPerSecond));
      return [String(p), jps.toFixed(2), `${(jps / one).toFixed(2)}x`, median(results[p].map((x) => x.engineMs)).toFixed(0)];
    }),
  );
}

if (process.argv.includes('--child')) child().catch((e) => (console.error(e), process.exit(1)));
else main().catch((e) => (console.error(e), process.exit(1)));
