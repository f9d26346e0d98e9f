import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  burst,
  newBenchAccount,
  oneByOne,
  overheadMs,
  quantile,
  type BenchClient,
  type BurstResult,
  type JobTiming,
  type Workload,
} from './measure';
import { MODES, startTarget, type Mode, type Target } from './targets';

/**
 * Orchestration bench (issues 4 and 14): the same jobs through the standalone and the distributed
 * deployment with one, two and four processors, side by side in one run.
 *
 *   nice -n 10 node bench/orchestration/run.js [--rounds 3] [--small 40] [--heavy 8] [--heavy-size 256] [--heavy-quality fast] [--single 10] [--modes standalone,1,2,4] [--engine-threads 0]
 *
 * All targets are started first and stay up; the rounds then take turns (rotating which target goes
 * first), so that the load of a shared machine falls on every target alike. Per round and target:
 * - small burst: `--small` jobs of 32x32 at 2k, quality fast, submitted at once; jobs per second from
 *   the first submit to the last finish. The engine works a few tens of ms per job: this measures
 *   the orchestration (HTTP, reservation, log, relay, Kafka, storage, settlement).
 * - engine-bound burst: `--heavy` jobs of `--heavy-size` squared at 4k at once; the engine is the
 *   bottleneck here.
 * - overhead: `--single` small jobs one after another (none waits behind another); per job
 *   (finished_at - created_at) - engine time (JobSucceeded.data.engine.engineMs). The same
 *   difference over the small burst is shown too: there it is mostly time spent queued. The claim
 *   latency of the single jobs (JobQueued -> JobStarted, an idle processor waiting) is the work
 *   queue's: NOTIFY at commit, the SKIP LOCKED claim, the StartJob append.
 * `--engine-threads 1` gives every engine one core (UPSCALE_ENGINE_THREADS), so that two processors
 * on two cores do not share them.
 */

interface Args {
  rounds: number;
  small: number;
  heavy: number;
  heavySize: number;
  /** Quality tier of the heavy jobs: a heavier network makes the engine an even larger share of a job. */
  heavyQuality: 'fast' | 'balanced' | 'best';
  single: number;
  modes: Mode[];
  /** UPSCALE_ENGINE_THREADS of every target (0 = all cores, the default). */
  engineThreads: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { rounds: 3, small: 40, heavy: 8, heavySize: 256, heavyQuality: 'fast', single: 10, modes: MODES, engineThreads: 0 };
  const by: Record<string, Mode> = {
    standalone: 'standalone',
    '1': 'distributed, 1 processor',
    '2': 'distributed, 2 processors',
    '4': 'distributed, 4 processors',
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--rounds') args.rounds = Number(value);
    else if (flag === '--small') args.small = Number(value);
    else if (flag === '--heavy') args.heavy = Number(value);
    else if (flag === '--heavy-size') args.heavySize = Number(value);
    else if (flag === '--heavy-quality') args.heavyQuality = value as Args['heavyQuality'];
    else if (flag === '--single') args.single = Number(value);
    else if (flag === '--engine-threads') args.engineThreads = Number(value);
    else if (flag === '--modes') {
      args.modes = value.split(',').map((m) => {
        if (!by[m]) throw new Error(`--modes takes standalone,1,2,4; got ${m}`);
        return by[m];
      });
    } else throw new Error(`unknown option ${flag}`);
  }
  return args;
}

/** The same settings in every mode; billing's timeout is raised so that a burst is never refused. */
const ENV = {
  LOG_LEVEL: 'info',
  UPSCALE_RATE_LIMIT_PER_MINUTE: '1000000',
  UPSCALE_DEFAULT_QUALITY: 'fast',
  UPSCALE_BILLING_TIMEOUT_MS: '60000',
};
const JOB_TIMEOUT_MS = 900_000;

interface Round {
  small: BurstResult;
  heavy: BurstResult;
  single: JobTiming[];
  load: number;
}

interface Running {
  mode: Mode;
  target: Target;
  client: BenchClient;
  rounds: Round[];
}

async function gradient(size: number): Promise<Buffer> {
  const raw = Buffer.alloc(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 3;
      raw[i] = (x * 255) / (size - 1);
      raw[i + 1] = (y * 255) / (size - 1);
      raw[i + 2] = ((x + y) * 7) % 256;
    }
  }
  return sharp(raw, { raw: { width: size, height: size, channels: 3 } })
    .png()
    .toBuffer();
}

/** Not measured: every processor loads both networks and opens its connections. */
async function warmUp(r: Running, small: Buffer): Promise<void> {
  const processors = r.target.processorLogs().length;
  const warm: Workload = { name: 'warm-up', count: 4 * processors, size: 32, target: '2k' };
  for (let round = 0; round < 4; round++) {
    const a = await burst(r.target, r.client, small, warm, JOB_TIMEOUT_MS);
    const b = await burst(r.target, r.client, small, { ...warm, target: '4k' }, JOB_TIMEOUT_MS);
    if (a.perProcessor.every((n) => n > 0) && b.perProcessor.every((n) => n > 0)) return;
  }
}

async function measureRound(r: Running, args: Args, images: { small: Buffer; heavy: Buffer }): Promise<Round> {
  const load = os.loadavg()[0];
  console.error(`[${r.mode}] round ${r.rounds.length + 1} (load ${load.toFixed(1)})`);
  const small = await burst(r.target, r.client, images.small, { name: 'small', count: args.small, size: 32, target: '2k' }, JOB_TIMEOUT_MS);
  const heavy = await burst(
    r.target,
    r.client,
    images.heavy,
    { name: 'heavy', count: args.heavy, size: args.heavySize, target: '4k', quality: args.heavyQuality },
    JOB_TIMEOUT_MS,
  );
  const single = await oneByOne(
    r.target,
    r.client,
    images.small,
    { name: 'single', count: args.single, size: 32, target: '2k' },
    JOB_TIMEOUT_MS,
  );
  return { small, heavy, single, load };
}

function dumpLogs(r: Running): void {
  const file = join(tmpdir(), `upscaler-bench-orchestration-${r.mode.replace(/\W+/g, '-')}.log`);
  writeFileSync(file, r.target.logs());
  console.error(`[${r.mode}] the services' logs are in ${file}`);
}

function printTable(header: string[], rows: string[][]): void {
  const cells = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

const ms = (x: number) => `${Math.round(x)}`;
const median = (xs: number[]) => quantile(xs, 0.5);

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const images = { small: await gradient(32), heavy: await gradient(args.heavySize) };
  const startedAt = new Date().toISOString();
  const uptimeBefore = execFileSync('uptime', { encoding: 'utf8' }).trim();
  const running: Running[] = [];
  try {
    for (const mode of args.modes) {
      console.error(`[${mode}] starting (load ${os.loadavg()[0].toFixed(1)})`);
      const target = await startTarget(mode, { ...ENV, UPSCALE_ENGINE_THREADS: String(args.engineThreads) });
      const r: Running = { mode, target, client: await newBenchAccount(target), rounds: [] };
      running.push(r);
      await warmUp(r, images.small);
    }
    for (let round = 0; round < args.rounds; round++) {
      for (let k = 0; k < running.length; k++) {
        const r = running[(round + k) % running.length];
        try {
          r.rounds.push(await measureRound(r, args, images));
        } catch (e) {
          dumpLogs(r);
          throw e;
        }
      }
    }
  } finally {
    for (const r of running) await r.target.stop();
  }
  const uptimeAfter = execFileSync('uptime', { encoding: 'utf8' }).trim();
  report(args, running, startedAt, uptimeBefore, uptimeAfter);
}

function report(args: Args, running: Running[], startedAt: string, uptimeBefore: string, uptimeAfter: string): void {
  const rate = (r: Running, w: 'small' | 'heavy') => r.rounds.map((x) => x[w].jobsPerSecond);
  const busyRate = (r: Running) => r.rounds.map((x) => x.heavy.saturatedJobsPerSecond);
  const spread = (xs: number[]) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;
  const base = running.find((r) => r.mode === 'distributed, 1 processor');
  const ratio = (r: Running, w: 'small' | 'heavy') => (base ? `${(median(rate(r, w)) / median(rate(base, w))).toFixed(2)}x` : '-');
  const busyRatio = (r: Running) => (base ? `${(median(busyRate(r)) / median(busyRate(base))).toFixed(2)}x` : '-');
  const pooled = (r: Running, f: (x: Round) => JobTiming[]) => r.rounds.flatMap(f);
  console.log(
    `\norchestration bench, ${startedAt}: ${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}, node ${process.version}`,
  );
  console.log(
    `${args.rounds} rounds; small = ${args.small} x 32x32 at 2k, heavy = ${args.heavy} x ${args.heavySize}x${args.heavySize} at 4k ` +
      `(heavy quality ${args.heavyQuality}, small quality fast, submitted at once); single = ${args.single} small jobs one by one; ` +
      `engine threads ${args.engineThreads || 'all cores'}; jobs/s: median (min-max) over the rounds\n`,
  );
  printTable(
    [
      'mode',
      'small: jobs/s',
      'small: vs 1 proc.',
      'heavy: jobs/s',
      'heavy: vs 1 proc.',
      'heavy: jobs per processor',
      'heavy, every processor busy: jobs/s',
      'heavy, every processor busy: vs 1 proc.',
      'engine ms/job (small; heavy)',
      'overhead ms/job (single; median, p90)',
      'claim latency ms (single; p50, p99)',
      'finished - created - engine (small burst; median)',
    ],
    running.map((r) => {
      const perProcessor = r.rounds.map((x) => x.heavy.perProcessor).reduce((a, b) => a.map((n, i) => n + b[i]));
      const single = pooled(r, (x) => x.single).map(overheadMs);
      return [
        r.mode,
        spread(rate(r, 'small')),
        ratio(r, 'small'),
        spread(rate(r, 'heavy')),
        ratio(r, 'heavy'),
        r.mode === 'standalone' ? '-' : perProcessor.join(' + '),
        spread(busyRate(r)),
        busyRatio(r),
        `${ms(median(pooled(r, (x) => x.small.jobs).map((j) => j.engineMs)))}; ${ms(median(pooled(r, (x) => x.heavy.jobs).map((j) => j.engineMs)))}`,
        `${ms(median(single))}, ${ms(quantile(single, 0.9))}`,
        (() => {
          const claims = pooled(r, (x) => x.single).map((j) => j.claimMs);
          return `${ms(median(claims))}, ${ms(quantile(claims, 0.99))}`;
        })(),
        ms(median(pooled(r, (x) => x.small.jobs).map(overheadMs))),
      ];
    }),
  );
  console.log('\nper round (load average over 1 min at its start):\n');
  printTable(
    ['round', 'mode', 'load', 'small: jobs/s', 'heavy: jobs/s', 'heavy: jobs per processor', 'heavy, every processor busy: jobs/s'],
    running
      .flatMap((r) => r.rounds.map((x, i) => ({ r, x, i })))
      .sort((a, b) => a.i - b.i)
      .map(({ r, x, i }) => [
        String(i + 1),
        r.mode,
        x.load.toFixed(1),
        x.small.jobsPerSecond.toFixed(2),
        x.heavy.jobsPerSecond.toFixed(2),
        x.heavy.perProcessor.join(' + '),
        x.heavy.saturatedJobsPerSecond.toFixed(2),
      ]),
  );
  console.log(`\nuptime before: ${uptimeBefore}\nuptime after:  ${uptimeAfter}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
