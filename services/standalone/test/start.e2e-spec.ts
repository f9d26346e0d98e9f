import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_REGISTRY } from '@upscaler/engine';
import { spawnSync } from 'node:child_process';
import { createAccountWithKey, gradientImage, REPO_ROOT, startService } from '@upscaler/testing';

/** README quick start: the standalone prints its base URL and where the operator token is (docs/design.md §6). */
const dirs: string[] = [];
function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'upscaler-start-'));
  chmodSync(d, 0o755);
  dirs.push(d);
  return d;
}

describe('npm start (the standalone)', () => {
  // each holds an embedded Postgres (~48 MB): removed, so repeated runs do not fill the disk
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('generates an operator token into <data dir>/operator-token (0600) and says where', async () => {
    const dir = dataDir();
    const svc = await startService({ dataDir: dir, env: { UPSCALE_OPERATOR_TOKEN: undefined } });
    try {
      const file = join(dir, 'operator-token');
      expect(svc.logs()).toContain(`Base URL:        http://127.0.0.1:${svc.port}/api/v1`);
      expect(svc.logs()).toContain(`Operator token:  in ${file}`);
      // where a new user goes next: the dashboard and the API reference
      expect(svc.logs()).toContain(`Dashboard:       http://127.0.0.1:${svc.port}/dashboard`);
      expect(svc.logs()).toContain(
        `API reference:   http://127.0.0.1:${svc.port}/docs (OpenAPI: http://127.0.0.1:${svc.port}/api/v1/openapi.json)`,
      );
      // a second one on the same port says what to do, without a stack trace
      const second = spawnSync(process.execPath, [join(REPO_ROOT, 'dist/services/standalone/src/main.js')], {
        env: { ...process.env, PORT: String(svc.port), UPSCALE_HOST: '127.0.0.1', UPSCALE_DATA_DIR: dataDir(), LOG_LEVEL: 'warn' },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect([second.status, second.stderr.trim()]).toEqual([
        1,
        `Failed to start: port ${svc.port} on 127.0.0.1 is already in use. Stop what listens there, or choose another port: PORT=${svc.port + 1} npm start`,
      ]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const token = readFileSync(file, 'utf8').trim();
      expect(token.length).toBeGreaterThanOrEqual(32);
      const r = await fetch(`${svc.apiUrl}/admin/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'first', credits: 5 }),
      });
      expect(r.status).toBe(201);
    } finally {
      await svc.stop();
    }
  });

  it('uses UPSCALE_OPERATOR_TOKEN when it is set, and keeps the same data across a restart', async () => {
    const dir = dataDir();
    const env = { UPSCALE_OPERATOR_TOKEN: 'operator-token-from-env-0123456789' };
    const first = await startService({ dataDir: dir, env });
    let accountId: string;
    try {
      expect(first.logs()).toContain('Operator token:  from UPSCALE_OPERATOR_TOKEN');
      const r = await fetch(`${first.apiUrl}/admin/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.UPSCALE_OPERATOR_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'kept', credits: 7 }),
      });
      accountId = ((await r.json()) as { id: string }).id;
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const second = await startService({ dataDir: dir, env });
    try {
      const r = await fetch(`${second.apiUrl}/admin/accounts/${accountId}`, {
        headers: { authorization: `Bearer ${env.UPSCALE_OPERATOR_TOKEN}` },
      });
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ id: accountId, name: 'kept', balance: 7, reserved: 0, charged: 0 });
    } finally {
      await second.stop();
    }
  });

  it('refuses a bad setting at start with a message naming the variable', async () => {
    await expect(
      startService({ dataDir: dataDir(), env: { UPSCALE_RATE_LIMIT_PER_MINUTE: 'lots' }, readyTimeoutMs: 20_000 }),
    ).rejects.toThrow(/UPSCALE_RATE_LIMIT_PER_MINUTE: must be an integer/);
  });

  it('UPSCALE_ENGINE_REGISTRY: the api takes its default tier, the processor its networks; a network file that is missing stops the start', async () => {
    const dir = dataDir();
    const file = join(dir, 'registry.json');
    writeFileSync(file, JSON.stringify({ ...DEFAULT_REGISTRY, defaultQuality: 'balanced' }));
    const svc = await startService({ dataDir: dir, env: { UPSCALE_ENGINE_REGISTRY: file, UPSCALE_DEFAULT_QUALITY: undefined } });
    try {
      const { client } = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { credits: 10 });
      const job = await client.upload(await gradientImage(16, 16), { target: '2k' });
      expect(job.status).toBe(202);
      const done = await client.waitForFinal(job.body.id);
      expect([done.status, done.quality]).toEqual(['succeeded', 'balanced']);
    } finally {
      await svc.stop();
    }
    const broken = join(dir, 'broken.json');
    const networks = {
      ...DEFAULT_REGISTRY.networks,
      'ours-fast-x2': { ...DEFAULT_REGISTRY.networks['ours-fast-x2'], file: 'no-such-network.onnx' },
    };
    writeFileSync(broken, JSON.stringify({ ...DEFAULT_REGISTRY, networks }));
    await expect(startService({ dataDir: dataDir(), env: { UPSCALE_ENGINE_REGISTRY: broken }, readyTimeoutMs: 60_000 })).rejects.toThrow(
      /no-such-network\.onnx is missing/,
    );
  });
});
