import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import sharp from 'sharp';
import {
  ApiClient,
  createAccountWithKey,
  e2eMode,
  gradientImage,
  REPO_ROOT,
  startTarget,
  truncatedPng,
  type StartedService,
} from '@upscaler/testing';

/**
 * The `upscaler` CLI end to end against a real standalone: a folder tree of 12 images in four
 * formats, one of them corrupt, upscaled with --concurrency 3, interrupted with SIGINT halfway and run again with
 * the same arguments. The built bin runs as a child process (`npm run build` first), exactly as `npx upscaler` does.
 */

const BIN = join(REPO_ROOT, 'clients', 'typescript', 'bin', 'upscaler.js');

interface Run {
  code: number | null;
  lines: any[];
  stderr: string;
}

let svc: StartedService;
let work: string;
let env: Record<string, string>;

/** Runs the CLI; `interruptAfterFiles`: sends SIGINT once that many `file` lines have come out. */
function cli(args: string[], opts: { interruptAfterFiles?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: work,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: any[] = [];
    let out = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const text = out.slice(0, nl);
        out = out.slice(nl + 1);
        lines.push(args.includes('--json') ? JSON.parse(text) : text);
        const files = lines.filter((l) => l?.event === 'file').length;
        if (!interrupted && opts.interruptAfterFiles !== undefined && files >= opts.interruptAfterFiles) {
          interrupted = true;
          child.kill('SIGINT');
        }
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, lines, stderr }));
  });
}

/** relative path -> [format, width, height] of the 11 good images; broken.png is the corrupt one. */
const TREE: Record<string, ['png' | 'jpeg' | 'webp' | 'avif', number, number]> = {
  'a.png': ['png', 40, 30],
  'b.jpg': ['jpeg', 36, 28],
  'trip/c.webp': ['webp', 32, 32],
  'trip/d.avif': ['avif', 30, 20],
  'trip/e.png': ['png', 24, 36],
  'trip/day2/f.jpeg': ['jpeg', 44, 22],
  'trip/day2/g.png': ['png', 20, 20],
  'misc/h.webp': ['webp', 28, 40],
  'misc/i.png': ['png', 33, 17],
  'misc/j.jpg': ['jpeg', 26, 26],
  'misc/k.avif': ['avif', 38, 24],
};

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'upscaler-cli-'));
  for (const [path, [format, w, h]] of Object.entries(TREE)) {
    mkdirSync(join(work, 'photos', dirname(path)), { recursive: true });
    writeFileSync(join(work, 'photos', path), await gradientImage(w, h, format));
  }
  writeFileSync(join(work, 'photos', 'misc', 'broken.png'), await truncatedPng());
  writeFileSync(join(work, 'photos', 'misc', 'notes.txt'), 'not an image: left alone');
  svc = await startTarget({ env: { UPSCALE_RATE_LIMIT_PER_MINUTE: '10000' } });
  const acct = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { credits: 200, scopes: ['jobs:read', 'jobs:write'] });
  env = { UPSCALER_API_KEY: acct.key, UPSCALER_BASE_URL: svc.apiUrl };
});

afterAll(async () => {
  await svc?.stop();
  if (svc && e2eMode() === 'standalone') rmSync(svc.dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('upscaler upscale: a folder tree, interrupted and resumed', () => {
  const args = ['upscale', 'photos', '-t', '4k', '-f', 'webp', '-q', 'fast', '-o', 'out', '--concurrency', '3', '--json'];
  let first: Run;
  let second: Run;

  it('SIGINT halfway stops the run with exit status 130 and leaves only whole outputs', async () => {
    const t0 = Date.now();
    first = await cli(args, { interruptAfterFiles: 5 });
    const seconds = (Date.now() - t0) / 1000;
    expect(first.code).toBe(130);
    expect(first.lines[0]).toMatchObject({ event: 'start', files: 12, concurrency: 3 });
    const summary = first.lines.at(-1);
    expect(summary).toMatchObject({ event: 'summary', files: 12, exit_code: 130 });
    expect(summary.interrupted).toBeGreaterThan(0);
    expect(summary.succeeded + summary.failed + summary.skipped + summary.interrupted).toBe(12);
    const made = first.lines.filter((l) => l.event === 'file' && l.status === 'succeeded').map((l) => l.relative);
    // Exactly the succeeded files have an output, each whole (no partial download left behind).
    const outputs = walk(join(work, 'out')).map((p) => relative(join(work, 'out'), p));
    expect(outputs.sort()).toEqual(made.map((r: string) => r.replace(/\.[a-z]+$/, '.webp')).sort());
    process.stdout.write(`first run: ${made.length} outputs, interrupted after ${seconds.toFixed(1)} s\n`);
  });

  it('the same command again finishes the rest: every output once with 4x the size, the corrupt image reported as corrupt_image, exit status 3', async () => {
    const t0 = Date.now();
    second = await cli(args);
    const seconds = (Date.now() - t0) / 1000;
    expect(second.code).toBe(3);
    const files = second.lines.filter((l) => l.event === 'file');
    expect(files).toHaveLength(12);
    const firstMade = first.lines.filter((l) => l.event === 'file' && l.status === 'succeeded').map((l) => l.relative);
    expect(
      files
        .filter((l) => l.status === 'skipped')
        .map((l) => l.relative)
        .sort(),
    ).toEqual([...firstMade].sort());
    const broken = files.find((l) => l.relative === 'misc/broken.png');
    expect(broken).toMatchObject({ status: 'failed', code: 'corrupt_image' });
    expect(broken.job_id).toMatch(/^job_/);
    expect(second.lines.at(-1)).toMatchObject({ event: 'summary', files: 12, failed: 1, interrupted: 0, exit_code: 3 });
    expect(second.lines.at(-1).succeeded + second.lines.at(-1).skipped).toBe(11);
    // Jobs the interrupted run had created were found again by their Idempotency-Key, not made anew.
    const replayed = files.filter((l) => l.replayed === true);
    expect(replayed.length).toBeGreaterThanOrEqual(1);

    const outputs = walk(join(work, 'out')).map((p) => relative(join(work, 'out'), p).split('\\').join('/'));
    expect(outputs.sort()).toEqual(
      Object.keys(TREE)
        .map((r) => r.replace(/\.[a-z]+$/, '.webp'))
        .sort(),
    );
    for (const [path, [, w, h]] of Object.entries(TREE)) {
      const meta = await sharp(join(work, 'out', path.replace(/\.[a-z]+$/, '.webp'))).metadata();
      expect([path, meta.format, meta.width, meta.height]).toEqual([path, 'webp', w * 4, h * 4]);
    }
    process.stdout.write(
      `second run: ${files.filter((l) => l.status === 'succeeded').length} made (${replayed.length} from jobs the first run created), ` +
        `${files.filter((l) => l.status === 'skipped').length} skipped, ${seconds.toFixed(1)} s\n`,
    );
  });

  it('credits were charged exactly once per output: 11 x 9, one job per input, the corrupt one refunded', async () => {
    const account = await cli(['account', '--json']);
    expect(account.code).toBe(0);
    expect(account.lines[0]).toMatchObject({ object: 'account', balance: 200 - 99, reserved: 0, charged: 99 });
    const jobs = await cli(['jobs', '--all', '--limit', '5', '--json']);
    expect(jobs.code).toBe(0);
    expect(jobs.lines).toHaveLength(12);
    expect(jobs.lines.filter((j) => j.status === 'succeeded')).toHaveLength(11);
    expect(jobs.lines.filter((j) => j.status === 'failed')).toHaveLength(1);
    expect(new Set(jobs.lines.map((j) => j.id)).size).toBe(12);
    // the table tells them apart: each line names its file, the failed one its error code
    const table = await cli(['jobs', '--all']);
    const failed = table.lines.filter((l: string) => / failed /.test(l));
    expect([failed.length, failed[0]?.endsWith('broken.png (corrupt_image)')]).toEqual([1, true]);
    expect(table.lines.filter((l: string) => / succeeded .* 9 .*\.(png|jpe?g|webp|avif)$/.test(l))).toHaveLength(11);
  });

  it('a third run has nothing left to do and charges nothing', async () => {
    const third = await cli(args);
    expect(third.code).toBe(3);
    expect(third.lines.at(-1)).toMatchObject({ skipped: 11, failed: 1, succeeded: 0, credits: 0 });
    const jobs = await cli(['jobs', '--all', '--json']);
    expect(jobs.lines).toHaveLength(12);
    const account = await cli(['account', '--json']);
    expect(account.lines[0]).toMatchObject({ balance: 101, charged: 99 });
  });
});

describe('upscaler: usage and exit statuses', () => {
  it('out of credits: the file refused with 402 is reported as insufficient_credits, the rest is not submitted, exit status 5', async () => {
    const poor = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { credits: 9, scopes: ['jobs:read', 'jobs:write'] });
    const saved = { ...env };
    env = { UPSCALER_API_KEY: poor.key, UPSCALER_BASE_URL: svc.apiUrl };
    try {
      const run = await cli(['upscale', 'photos/trip', '-t', '4k', '-o', 'poor', '--concurrency', '1', '--json']);
      expect(run.code).toBe(5);
      const files = run.lines.filter((l) => l.event === 'file');
      expect(files.map((l) => [l.relative, l.status, l.code])).toEqual([
        ['c.webp', 'succeeded', undefined],
        ['d.avif', 'failed', 'insufficient_credits'],
      ]);
      expect(run.lines.at(-1)).toMatchObject({ event: 'summary', files: 5, succeeded: 1, failed: 1, not_started: 3, exit_code: 5 });
    } finally {
      env = saved;
    }
  });

  it('compare: one image through fast, balanced and sharp, side by side in a sheet; a second run pays nothing', async () => {
    const before = (await new ApiClient(svc.apiUrl, env.UPSCALER_API_KEY).get('/account')).body;
    const run = await cli(['compare', 'photos/a.png', '-q', 'fast,balanced,sharp', '-t', '3k', '-o', 'cmp', '--json']);
    expect(run.code).toBe(0);
    const summary = run.lines.at(-1);
    expect(summary.cells.map((c: any) => [c.quality, c.status, c.file, c.width, c.height, c.credits])).toEqual([
      ['fast', 'succeeded', 'a-fast.png', 120, 90, 6],
      ['balanced', 'succeeded', 'a-balanced.png', 120, 90, 6],
      ['sharp', 'succeeded', 'a-sharp.png', 120, 90, 6],
    ]);
    expect([summary.credits, summary.exit_code, summary.sheet]).toEqual([18, 0, join('cmp', 'a-compare.html')]);
    for (const q of ['fast', 'balanced', 'sharp']) {
      const meta = await sharp(join(work, 'cmp', `a-${q}.png`)).metadata();
      expect([q, meta.width, meta.height]).toEqual([q, 120, 90]);
    }
    const sheet = readFileSync(join(work, 'cmp', 'a-compare.html'), 'utf8');
    expect([...sheet.matchAll(/<img src="([^"]+)" width="120" height="90"/g)].map((m) => m[1])).toEqual([
      'a-source.png',
      'a-fast.png',
      'a-balanced.png',
      'a-sharp.png',
    ]);
    expect(sheet).toMatch(/<figcaption>sharp: \d+\.\d s, 120x90, \d+ KiB, 6 credits<\/figcaption>/);
    const charged = (await new ApiClient(svc.apiUrl, env.UPSCALER_API_KEY).get('/account')).body;
    expect(before.balance - charged.balance).toBe(18);
    // the same command again: the three jobs are found by their keys, nothing is charged
    const again = await cli(['compare', 'photos/a.png', '-q', 'fast,balanced,sharp', '-t', '3k', '-o', 'cmp', '--json']);
    expect(again.code).toBe(0);
    expect((await new ApiClient(svc.apiUrl, env.UPSCALER_API_KEY).get('/account')).body.balance).toBe(charged.balance);
  });

  it('--help answers 0 with the commands; a bad target answers 2; a refused key answers 4', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.lines.join('\n')).toMatch(/upscaler upscale <files or folders/);
    const bad = await cli(['upscale', 'photos', '-t', '8k', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.lines[0]).toMatchObject({ event: 'error', code: 'usage' });
    const both = await cli(['upscale', 'photos', '-t', '2k', '--width', '100', '--json']);
    expect([both.code, both.lines[0]?.message]).toEqual([2, 'give --target or a size (--width, --height), not both']);
    const fitAlone = await cli(['upscale', 'photos', '--fit', 'cover', '--json']);
    expect([fitAlone.code, fitAlone.lines[0]?.message]).toEqual([2, '--fit needs --width and --height']);
    const saved = env.UPSCALER_API_KEY;
    env.UPSCALER_API_KEY = 'usk_notakeyatallnotakeyatallnotakey';
    try {
      const refused = await cli(['account', '--json']);
      expect(refused.code).toBe(4);
      expect(refused.lines[0]).toMatchObject({ event: 'error', code: 'unauthorized', status: 401 });
    } finally {
      env.UPSCALER_API_KEY = saved!;
    }
  });
});

describe('upscaler installed from its package, outside the repository', () => {
  it('npm pack + npm install -g --prefix: the upscaler command runs from another folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upscaler-cli-install-'));
    try {
      const npm = (args: string[], cwd: string) => {
        const r = spawnSync('npm', args, {
          cwd,
          encoding: 'utf8',
          env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' },
        });
        if (r.status !== 0) throw new Error(`npm ${args.join(' ')}: ${r.status}\n${r.stderr}`);
        return r.stdout.trim();
      };
      // what README "CLI and SDKs" tells people to run (the package is built by npm run build)
      const tarball = npm(['pack', join(REPO_ROOT, 'clients', 'typescript'), '--pack-destination', dir], dir)
        .split('\n')
        .at(-1)!;
      npm(['install', '-g', '--prefix', join(dir, 'prefix'), join(dir, tarball)], dir);
      const upscaler = (args: string[]) =>
        spawnSync(join(dir, 'prefix', 'bin', 'upscaler'), args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });
      const r = upscaler(['account', '--json']);
      expect([r.status, JSON.parse(r.stdout).object]).toEqual([0, 'account']);
      // output by pixel size: a.png is 40x30, so width 100 runs 3k and the file is 100x75
      const sized = upscaler(['upscale', join(work, 'photos', 'a.png'), '--width', '100', '-q', 'fast', '-o', 'sized', '--json']);
      expect(sized.status).toBe(0);
      const meta = await sharp(join(dir, 'sized', 'a.png')).metadata();
      expect([meta.width, meta.height]).toEqual([100, 75]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
