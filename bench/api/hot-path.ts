// The API's hot path: GET /jobs/{id}, the call every client polls, against a bare Node HTTP
// server answering the same bytes, in the same run and on the same machine.
//
//   nice -n 10 node bench/api/run.js [--rounds 3] [--duration 10] [--connections 32] [--keys 40] [--warmup 3]
//                                    [--log-level info] [--profile DIR]
//
// The service is the built standalone (`npm run build` first) on loopback with its embedded Postgres, started as
// the end-to-end suites start it (libs/testing startService), at the production log level (info: one JSON line
// per request, written to a file in its data directory). `--keys` accounts each get a key and a small job, run to
// success; autocannon then polls GET /jobs/{id} with `--connections` connections, each cycling through the
// keys, every request with its own key and that key's job. Each round takes fresh keys, so no key's one-minute
// window carries over from an earlier round (the keys' limit, 10,000 per minute, is far above a round's share).
// The bare server (a child process too) answers every request with the body of one of those jobs. Rounds
// alternate which target goes first, so the load of a shared machine falls on both alike.
// `--profile DIR`: the service runs with --cpu-prof; after the rounds the bench prints where its CPU time went.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { ApiClient, createAccountWithKey, gradientImage, startService, type StartedService } from '@upscaler/testing';
import { arg } from '../engine/args';
import { machineLine, printTable } from '../engine/table';
import { summariseProfile } from './profile-summary';

interface Target {
  name: string;
  url: string;
}

interface Measured {
  round: number;
  target: string;
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  non2xx: number;
  errors: number;
}

interface Poll {
  path: string;
  key: string;
}

const BARE_SERVER = `
const http = require('node:http');
const body = Buffer.from(process.env.BENCH_BODY);
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
`;

async function startBareServer(body: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', BARE_SERVER], {
    env: { ...process.env, BENCH_BODY: body },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /port (\d+)/.exec(out);
      if (m) ok(Number(m[1]));
    });
    child.once('exit', (code) => fail(new Error(`bare server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

async function poll(url: string, polls: Poll[], connections: number, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: polls.map((p) => ({ method: 'GET', path: p.path, headers: { authorization: `Bearer ${p.key}` } })),
  });
}

/** The keys' jobs: one account, key and finished job each (the first round's keys). */
async function setUp(svc: StartedService, keys: number): Promise<{ accounts: Array<{ accountId: string; jobId: string }>; body: string }> {
  const image = await gradientImage(16, 16);
  const accounts: Array<{ accountId: string; jobId: string }> = [];
  let body = '';
  for (let i = 0; i < keys; i++) {
    const acct = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { credits: 10, name: `bench ${i}`, rateLimitPerMinute: 10_000 });
    const submitted = await acct.client.upload(image, { target: '2k', quality: 'fast' });
    if (submitted.status !== 202) throw new Error(`submit: ${submitted.status} ${submitted.text}`);
    accounts.push({ accountId: acct.accountId, jobId: submitted.body.id });
  }
  const reader = await freshKeys(svc, accounts);
  for (const [i, a] of accounts.entries()) {
    await new ApiClient(svc.apiUrl, reader[i].key).waitForFinal(a.jobId);
  }
  const first = await new ApiClient(svc.apiUrl, reader[0].key).get(`/jobs/${accounts[0].jobId}`);
  body = first.text;
  return { accounts, body };
}

/** A new jobs:read key per account (a fresh rate-limit window for each round). */
async function freshKeys(svc: StartedService, accounts: Array<{ accountId: string; jobId: string }>): Promise<Poll[]> {
  const operator = new ApiClient(svc.apiUrl, svc.operatorToken);
  const polls: Poll[] = [];
  for (const a of accounts) {
    const key = await operator.post(`/admin/accounts/${a.accountId}/keys`, {
      name: 'bench',
      scopes: ['jobs:read'],
      rate_limit_per_minute: 10_000,
    });
    if (key.status !== 201) throw new Error(`create key: ${key.status} ${key.text}`);
    polls.push({ path: `/api/v1/jobs/${a.jobId}`, key: key.body.key });
  }
  return polls;
}

function row(round: number, target: string, r: autocannon.Result): Measured {
  return {
    round,
    target,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    p999: r.latency.p99_9,
    max: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '3'));
  const seconds = Number(arg('duration', '10'));
  const connections = Number(arg('connections', '32'));
  const keys = Number(arg('keys', '40'));
  const warmup = Number(arg('warmup', '3'));
  const logLevel = arg('log-level', 'info');
  const profileDir = arg('profile', '');
  if (profileDir) mkdirSync(resolve(profileDir), { recursive: true });

  const dataDir = mkdtempSync(join(tmpdir(), 'upscaler-bench-api-'));
  chmodSync(dataDir, 0o755); // embedded Postgres runs as `postgres` when we are root
  const svc = await startService({
    dataDir,
    readyTimeoutMs: 180_000,
    env: {
      UPSCALE_OPERATOR_TOKEN: 'op-bench-api',
      UPSCALE_MAX_API_KEYS_PER_ACCOUNT: '1000',
      LOG_LEVEL: logLevel,
    },
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`] : [],
    // a line per request: to a file, as a container runtime keeps it, not through this process (autocannon's)
    stdoutFile: join(dataDir, 'service.log'),
  });
  let bare: { url: string; child: ChildProcess } | undefined;
  try {
    const { accounts, body } = await setUp(svc, keys);
    bare = await startBareServer(body);
    const targets: Target[] = [
      { name: 'bare Node HTTP server', url: bare.url },
      { name: 'GET /jobs/{id} (standalone)', url: svc.baseUrl },
    ];
    // JIT and connection pools warm, on both, before anything is measured.
    const warm = await freshKeys(svc, accounts);
    for (const t of targets) await poll(t.url, warm, connections, warmup);

    const measured: Measured[] = [];
    for (let round = 1; round <= rounds; round++) {
      const polls = await freshKeys(svc, accounts);
      const order = round % 2 ? targets : [...targets].reverse();
      for (const t of order) measured.push(row(round, t.name, await poll(t.url, polls, connections, seconds)));
    }

    console.log(machineLine());
    console.log(`autocannon ${connections} connections, ${keys} keys, ${seconds} s per round, log level ${logLevel}`);
    printTable(
      ['round', 'target', 'requests/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'non-2xx', 'errors'],
      measured.map((m) => [m.round, m.target, Math.round(m.rps), m.p50, m.p99, m.p999, m.max, m.non2xx, m.errors]),
    );
    console.log('');
    printTable(
      ['target', 'median requests/s', 'median p99 ms'],
      targets.map((t) => {
        const of = measured.filter((m) => m.target === t.name);
        return [t.name, Math.round(median(of.map((m) => m.rps))), median(of.map((m) => m.p99))];
      }),
    );
    if (measured.some((m) => m.non2xx > 0 || m.errors > 0)) {
      console.log('\nsome answers were not 2xx (or failed): the numbers above do not measure the hot path alone');
      process.exitCode = 1;
    }
  } finally {
    bare?.child.kill();
    await svc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (profileDir) {
    const files = readdirSync(resolve(profileDir)).filter((f) => f.endsWith('.cpuprofile'));
    for (const f of files) {
      console.log(`\n${f}:`);
      summariseProfile(join(resolve(profileDir), f));
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
