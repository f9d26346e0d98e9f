import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { gradientImage, REPO_ROOT, startTarget, type StartedService } from '@upscaler/testing';
import { describeStandalone } from './jobs-harness';

/**
 * A first run that works verbatim: the shell blocks of README.md ("First job in four calls", "CLI and SDKs") and
 * every shell block of docs/api.md run as written, in order, in one folder as a new user's: `data` is the
 * service's data folder (for `data/operator-token`), `clients/typescript` the SDK (for the README's `npm pack`),
 * and the images the examples name are there. The one change made to a block: the standalone's address
 * `127.0.0.1:8080` becomes this test service's (README: "Port 8080 taken? PORT=8081 npm start").
 *
 * Each block runs in bash with `set -e` and every variable set so far (`set -a`: a block's assignments carry to
 * the next, as in one terminal). The ids docs/api.md names `$JOB`, `$KEY_ID`, `$ENDPOINT` and `$DELIVERY` are
 * what its Conventions say: the id of the latest answer of that kind, read here from the block's output. A block
 * passes when it exits 0 and its answers hold no error other than the ones listed in ANSWERS_AS_DOCUMENTED (with
 * why: each is the documented answer for that state). `npm install -g` goes to a prefix in the folder.
 *
 * Not run: the Quick start's `npm ci && npm start` / `npm test` and `npm run test:cluster` (the commands that
 * start this service and run this suite), the benchmark scripts (minutes each), and the TypeScript and Python
 * snippets (the SDK suites run those calls). example.com, which the webhook and image URL examples use, does not
 * resolve on a machine without internet access: the service runs with a DNS hook that answers 127.0.0.1 for it
 * (and private networks allowed), so endpoints register and deliveries fail to connect, as to a host that is down.
 */
jest.setTimeout(600_000);

interface Block {
  file: string;
  line: number;
  text: string;
}

/** The documented error answers, by a text of the block: the example shows a refusal, or the state makes it one. */
const ANSWERS_AS_DOCUMENTED: Array<{ block: string; codes: string[]; why: string }> = [
  { block: 'charset=latin1', codes: ['unsupported_charset'], why: 'the example of a refused charset' },
  { block: 'https://example.com/photos/cat.jpg', codes: ['image_fetch_failed'], why: 'example.com serves nothing here' },
  { block: '-X DELETE $BASE/jobs/$JOB', codes: ['conflict'], why: 'the examples job finished long before: 409 as documented' },
];

/** Fenced ```sh / ```bash blocks (indented ones too), with the line each starts on. */
function shellBlocks(file: string): Block[] {
  const lines = readFileSync(join(REPO_ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(sh|bash)\s*$/.exec(lines[i]);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++) body.push(lines[j].slice(open[1].length));
    blocks.push({ file, line: i + 1, text: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** The JSON objects printed one after another (curl -s prints bodies without a newline), ignoring other text. */
function jsonObjects(text: string): Array<Record<string, unknown>> {
  const found: Array<Record<string, unknown>> = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '{') continue;
    let depth = 0;
    let inString = false;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (inString) {
        if (c === '\\') j++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        try {
          found.push(JSON.parse(text.slice(i, j + 1)) as Record<string, unknown>);
          i = j;
        } catch {
          /* not JSON: go on from the next brace */
        }
        break;
      }
    }
  }
  return found;
}

const ID_OF: Record<string, string> = { job: 'JOB', api_key: 'KEY_ID', webhook_endpoint: 'ENDPOINT', webhook_delivery: 'DELIVERY' };

describeStandalone('the README and docs/api.md run as written', () => {
  let svc: StartedService;
  let work: string;
  let vars: Record<string, string>;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'upscaler-docs-'));
    const hook = join(work, 'example-dns.js');
    writeFileSync(
      hook,
      "const dns = require('node:dns'); const lookup = dns.lookup;\n" +
        'dns.lookup = function (host, opts, cb) {\n' +
        "  if (host !== 'example.com') return lookup.apply(this, arguments);\n" +
        "  const done = typeof opts === 'function' ? opts : cb; const all = typeof opts === 'object' && opts && opts.all;\n" +
        "  process.nextTick(() => (all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4)));\n" +
        '};\n',
    );
    svc = await startTarget({
      env: { NODE_OPTIONS: `--require ${hook}`, UPSCALE_ALLOW_PRIVATE_NETWORKS: 'true', UPSCALE_RATE_LIMIT_PER_MINUTE: '10000' },
    });
    symlinkSync(svc.dataDir, join(work, 'data'));
    mkdirSync(join(work, 'clients'));
    symlinkSync(join(REPO_ROOT, 'clients', 'typescript'), join(work, 'clients', 'typescript'));
    mkdirSync(join(work, 'photos'));
    writeFileSync(join(work, 'photo.jpg'), await gradientImage(120, 80, 'jpeg'));
    writeFileSync(join(work, 'photos', 'beach.jpg'), await gradientImage(60, 40, 'jpeg'));
    writeFileSync(join(work, 'photos', 'logo.png'), await gradientImage(32, 32, 'png'));
    writeFileSync(join(work, 'cat.jpg'), await gradientImage(320, 213, 'jpeg'));
    writeFileSync(join(work, 'drawing.png'), await gradientImage(64, 64, 'png'));
    const prefix = join(work, 'npm-global');
    // the user's environment (the machine's certificates and registry settings included), a global prefix in the folder
    vars = {
      ...(process.env as Record<string, string>),
      PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
      npm_config_prefix: prefix,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    };
  }, 300_000);
  afterAll(async () => {
    await svc?.stop();
    if (svc) rmSync(svc.dataDir, { recursive: true, force: true });
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** Runs one block in the folder with the variables so far; keeps what it sets, and the ids of its answers. */
  function run(block: Block): { code: number | null; stdout: string; stderr: string } {
    const script = block.text.replaceAll('127.0.0.1:8080', new URL(svc.baseUrl).host);
    const r = spawnSync(
      'bash',
      ['-c', `set -ea\n${script}\nprintf '\\n@@ENV@@'; node -e 'process.stdout.write(JSON.stringify(process.env))'`],
      {
        cwd: work,
        env: vars,
        encoding: 'utf8',
        timeout: 180_000,
      },
    );
    const [stdout, env] = r.stdout.split('\n@@ENV@@');
    if (env) vars = JSON.parse(env) as Record<string, string>;
    for (const o of jsonObjects(stdout)) {
      const name = typeof o.object === 'string' ? ID_OF[o.object] : undefined;
      if (name && typeof o.id === 'string') vars[name] = o.id;
    }
    return { code: r.status, stdout, stderr: r.stderr };
  }

  function expectRan(block: Block, r: { code: number | null; stdout: string; stderr: string }): void {
    const where = `${block.file}:${block.line}`;
    const allowed = ANSWERS_AS_DOCUMENTED.filter((a) => block.text.includes(a.block)).flatMap((a) => a.codes);
    const errors = jsonObjects(r.stdout)
      .map((o) => (o.error as { code?: string } | undefined)?.code)
      .filter((c): c is string => c !== undefined && !allowed.includes(c));
    const failed = r.code === 0 ? '' : `${r.stdout.slice(-1500)}\n--- stderr\n${r.stderr.slice(-1500)}`;
    expect({ where, code: r.code, errors, output: failed }).toEqual({ where, code: 0, errors: [], output: '' });
  }

  it('README: the first job in four calls, then the CLI (installed from the package), in a new folder', async () => {
    const readme = shellBlocks('README.md');
    const firstJob = readme.find((b) => b.text.includes('BASE=http://127.0.0.1:8080/api/v1'))!;
    const cli = readme.find((b) => b.text.includes('npm install -g'))!;
    for (const block of [firstJob, cli]) expectRan(block, run(block));
    const meta = await sharp(join(work, 'photo-2x.webp')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 240, 160]);
    const out = await sharp(join(work, 'out', 'beach.webp')).metadata();
    expect([out.width, out.height]).toEqual([240, 160]);
    expect(readFileSync(join(work, 'compared', 'photo-compare.html'), 'utf8')).toContain('photo-sharp.png');
  });

  it('docs/api.md: every shell block, in order', () => {
    // not a call of the API: a contributor's command in the repository (it rebuilds the document; CI checks its
    // effect with services/api/src/openapi/openapi.committed.spec.ts)
    const blocks = shellBlocks('docs/api.md').filter((b) => !b.text.startsWith('npm run openapi:render'));
    expect(blocks.length).toBeGreaterThan(25);
    for (const block of blocks) expectRan(block, run(block));
    // the examples made what they say: a job, a key revoked, an endpoint deleted, files downloaded
    expect([vars.JOB, vars.KEY_ID, vars.ENDPOINT, vars.DELIVERY].map((v) => /^(job|key|we|dlv)_[0-9a-f]{32}$/.test(v ?? ''))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(readFileSync(join(work, 'openapi.json'), 'utf8')).toContain('"openapi"');
  });
});
