import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_BASE_URL } from '../client';
import { UpscalerApiError } from '../errors';
import { Upscaler } from '../node';
import type { Fit, JobStatus, OutputFormat, Target } from '../types';
import { EXIT } from './exit-codes';
import { UsageError } from './files';
import { HumanReporter, JsonReporter } from './report';
import { runUpscale } from './upscale-command';
import { runCompare } from './compare-command';

const TARGETS = ['2k', '3k', '4k'] as const satisfies readonly Target[];
const FORMATS = ['png', 'jpeg', 'webp', 'avif'] as const satisfies readonly OutputFormat[];
const FITS = ['within', 'cover', 'exact'] as const satisfies readonly Fit[];
/** The widest or tallest result the service makes (docs/api.md, "Output by pixel size"). */
const MAX_SIDE = 65_500;

const HELP = `upscaler: upscale images with the Upscaler API

Usage:
  upscaler upscale <files or folders...> [-t 2k|3k|4k] [-f png|jpeg|webp|avif] [-q fast|balanced|best|sharp] [-o out/]
  upscaler compare <image> [options]
  upscaler jobs [--status <status>] [--limit <n>] [--all]
  upscaler account

Connection (every command):
  --api-key <key>       default: $UPSCALER_API_KEY
  --base-url <url>      default: $UPSCALER_BASE_URL, else ${DEFAULT_BASE_URL}
  --json                JSON lines on stdout, for scripts

upscale:
  -t, --target <t>      2k (2x, default), 3k (3x) or 4k (4x)
  -f, --format <f>      output format: png (default), jpeg, webp, avif
  -q, --quality <q>     quality tier: fast, balanced, best, sharp (default: the service's)
      --content <c>     what the images show: photo (default) or illustration (drawings, line art, screenshots)
  -W, --width <px>      output by pixel size instead of --target: the result's width (height follows the aspect)
  -H, --height <px>     the result's height; with both, --fit says how the result fits them
      --fit <f>         within (default: inside both, aspect kept), cover (fills both, cropped) or exact (stretched)
                        the service runs and charges the smallest target that reaches the size, then resizes exactly
  -o, --out <dir>       output folder (default: ./upscaled); folders given are mirrored into it
  -c, --concurrency <n> files in flight at once (default 3)
      --no-progress     no progress bars (they are drawn only on a terminal anyway)
  Folders are searched recursively for .jpg .jpeg .png .webp .avif files. An output that exists is skipped, and
  every file's job has an Idempotency-Key made from its content, place and settings: run an interrupted command
  again and it resumes, charging nothing twice.

compare: one image through every quality tier, side by side (each tier is a job, charged as one)
  -q, --quality <list>  the tiers, comma-separated (default: fast,balanced,best,sharp)
  -t, --target <t>      2k (default), 3k or 4k;  -f, --format <f>  png (default), jpeg, webp, avif
  -o, --out <dir>       output folder (default: ./compared): the results, the source and <name>-compare.html
  Running it again pays nothing twice (each tier's job has an Idempotency-Key made from the image and settings).

jobs:
  --status <s>          pending, queued, processing, succeeded, failed or cancelled
  --limit <n>           page size, 1-100 (default 25)
  --all                 every page, not only the newest

Exit codes: 0 done; 1 unexpected error; 2 usage; 3 some files failed; 4 key refused (401/403);
  5 out of credits (402); 130 interrupted (run it again to resume).
`;

const common = {
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

function version(): string {
  return (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
}

function connect(values: { 'api-key'?: string; 'base-url'?: string }, env: NodeJS.ProcessEnv): Upscaler {
  const apiKey = values['api-key'] ?? env.UPSCALER_API_KEY;
  if (!apiKey) throw new UsageError('no API key: pass --api-key or set UPSCALER_API_KEY');
  return new Upscaler({ apiKey, baseUrl: values['base-url'] ?? env.UPSCALER_BASE_URL ?? DEFAULT_BASE_URL });
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${name} must be one of ${allowed.join(', ')} (got ${value})`);
  return value as T;
}

function positiveInt(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`${name} must be an integer from 1 to ${max} (got ${value})`);
  return n;
}

async function upscaleCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...common,
      target: { type: 'string', short: 't' },
      format: { type: 'string', short: 'f' },
      quality: { type: 'string', short: 'q' },
      content: { type: 'string' },
      width: { type: 'string', short: 'W' },
      height: { type: 'string', short: 'H' },
      fit: { type: 'string' },
      out: { type: 'string', short: 'o', default: 'upscaled' },
      concurrency: { type: 'string', short: 'c' },
      'no-progress': { type: 'boolean', default: false },
    },
  });
  if (values.help) return help();
  if (positionals.length === 0) throw new UsageError('upscale: give at least one file or folder');
  const sized = values.width !== undefined || values.height !== undefined;
  if (sized && values.target !== undefined) throw new UsageError('give --target or a size (--width, --height), not both');
  if (!sized && values.fit !== undefined) throw new UsageError('--fit needs --width and --height');
  const client = connect(values, env);
  const reporter = values.json ? new JsonReporter() : new HumanReporter(!values['no-progress'] && process.stderr.isTTY === true);
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    reporter.message('interrupted: stopping (the jobs in flight finish on the service; run the same command again to resume)');
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSignal);
  try {
    const summary = await runUpscale({
      client,
      inputs: positionals,
      outDir: values.out,
      target: oneOf('--target', values.target, TARGETS),
      format: oneOf('--format', values.format, FORMATS),
      // Tiers are additive (sharp came later): the service judges them, so a newer tier needs no newer CLI.
      quality: values.quality as never,
      // Likewise the content hint: an unknown value is the service's 400 invalid_request, naming the values.
      content: values.content as never,
      width: values.width === undefined ? undefined : positiveInt('--width', values.width, 0, MAX_SIDE),
      height: values.height === undefined ? undefined : positiveInt('--height', values.height, 0, MAX_SIDE),
      fit: oneOf('--fit', values.fit, FITS),
      concurrency: positiveInt('--concurrency', values.concurrency, 3, 64),
      reporter,
      signal: controller.signal,
    });
    reporter.end(summary);
    return summary.exit_code;
  } finally {
    process.off('SIGINT', onSignal);
  }
}

const QUALITIES = ['fast', 'balanced', 'best', 'sharp'] as const;

async function compareCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...common,
      quality: { type: 'string', short: 'q' },
      target: { type: 'string', short: 't' },
      format: { type: 'string', short: 'f' },
      out: { type: 'string', short: 'o', default: 'compared' },
    },
  });
  if (values.help) return help();
  if (positionals.length !== 1) throw new UsageError('compare: give exactly one image');
  // Tiers are additive (as for upscale): a name this CLI does not know goes to the service, which judges it.
  const qualities = (values.quality ?? QUALITIES.join(','))
    .split(',')
    .map((q) => q.trim())
    .filter(Boolean);
  if (qualities.length === 0) throw new UsageError('--quality: name at least one tier');
  const client = connect(values, env);
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error('interrupted'));
  process.on('SIGINT', onSignal);
  try {
    const summary = await runCompare({
      client,
      input: positionals[0]!,
      outDir: values.out,
      qualities: qualities as never,
      target: oneOf('--target', values.target, TARGETS),
      format: oneOf('--format', values.format, FORMATS),
      signal: controller.signal,
    });
    if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    else {
      for (const c of summary.cells) {
        process.stdout.write(
          c.status === 'succeeded'
            ? `${c.quality.padEnd(9)} ${(((c.duration_ms ?? 0) / 1000).toFixed(1) + ' s').padStart(8)} ${c.width}x${c.height} ${c.credits} credits  ${c.file}\n`
            : `${c.quality.padEnd(9)} failed: ${c.code}: ${c.message}\n`,
        );
      }
      process.stdout.write(`sheet: ${summary.sheet} (${summary.credits} credits in all)\n`);
    }
    return summary.exit_code;
  } finally {
    process.off('SIGINT', onSignal);
  }
}

const JOB_STATUSES = ['pending', 'queued', 'processing', 'succeeded', 'failed', 'cancelled'] as const satisfies readonly JobStatus[];

async function jobsCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...common, status: { type: 'string' }, limit: { type: 'string' }, all: { type: 'boolean', default: false } },
  });
  if (values.help) return help();
  const client = connect(values, env);
  const query = { status: oneOf('--status', values.status, JOB_STATUSES), limit: positiveInt('--limit', values.limit, 25, 100) };
  const pages = values.all
    ? client.jobPages(query)
    : (async function* () {
        yield await client.listJobs(query);
      })();
  // One line a job, what tells jobs apart: the file, the output asked for, and why a failed one failed.
  if (!values.json)
    process.stdout.write(
      `${'id'.padEnd(37)} ${'status'.padEnd(10)} target quality  format credits ${'created_at'.padEnd(24)} file (error)\n`,
    );
  for await (const page of pages) {
    for (const j of page.data) {
      if (values.json) process.stdout.write(`${JSON.stringify(j)}\n`);
      else
        process.stdout.write(
          `${j.id.padEnd(37)} ${j.status.padEnd(10)} ${j.target.padEnd(6)} ${(j.quality ?? '').padEnd(8)} ${(j.format ?? '').padEnd(6)} ` +
            `${String(j.credits).padStart(7)} ${j.created_at.padEnd(24)} ${j.filename ?? '-'}${j.error ? ` (${j.error.code})` : ''}\n`,
        );
    }
  }
  return EXIT.ok;
}

async function accountCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({ args, options: common });
  if (values.help) return help();
  const a = await connect(values, env).account();
  if (values.json) process.stdout.write(`${JSON.stringify(a)}\n`);
  else process.stdout.write(`${a.name} (${a.id})\n  balance  ${a.balance} credits\n  reserved ${a.reserved}\n  charged  ${a.charged}\n`);
  return EXIT.ok;
}

function help(): number {
  process.stdout.write(HELP);
  return EXIT.ok;
}

/** The `upscaler` command; answers its exit status. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        return help();
      case '--version':
      case '-v':
        process.stdout.write(`${version()}\n`);
        return EXIT.ok;
      case 'upscale':
        return await upscaleCommand(rest, env);
      case 'compare':
        return await compareCommand(rest, env);
      case 'jobs':
        return await jobsCommand(rest, env);
      case 'account':
        return await accountCommand(rest, env);
      default:
        throw new UsageError(`unknown command ${command} (upscale, compare, jobs, account)`);
    }
  } catch (e) {
    const json = argv.includes('--json');
    const report = (o: Record<string, unknown>, text: string) =>
      json ? process.stdout.write(`${JSON.stringify({ event: 'error', ...o })}\n`) : process.stderr.write(`upscaler: ${text}\n`);
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      report({ code: 'usage', message: (e as Error).message }, `${(e as Error).message}\nRun upscaler --help for usage.`);
      return EXIT.usage;
    }
    if (e instanceof UpscalerApiError) {
      report({ code: e.code, status: e.status, message: e.message }, e.message);
      return e.status === 401 || e.status === 403 ? EXIT.auth : e.status === 402 ? EXIT.credits : EXIT.error;
    }
    report({ code: 'error', message: String((e as Error)?.message ?? e) }, String((e as Error)?.stack ?? e));
    return EXIT.error;
  }
}
