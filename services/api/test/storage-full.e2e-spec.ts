import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiClient,
  createAccountWithKey,
  gradientImage,
  mountSmallDisk,
  describeWithSmallDisk,
  startService,
  type SmallDisk,
  type StartedService,
} from '@upscaler/testing';
import { describeStandalone } from './jobs-harness';

/**
 * Disk full at submit (docs/runbooks.md "Storage full or unreachable"), end to end: a standalone whose data directory
 * (its storage folder and its embedded Postgres) is a small real disk (a tmpfs; root only, as CI runs). With the disk full, POST /upscale answers 503 service_unavailable with Retry-After and the error body,
 * reserves nothing and leaves no file; readiness says storage is down; space freed is usable at once.
 */
const OPERATOR_TOKEN = 'op-e2e-storage-full-5d1c9e7a2b';
const describeOnSmallDisk = describeWithSmallDisk(describeStandalone);

describeOnSmallDisk('storage full at submit', () => {
  let dataDir: string;
  let disk: SmallDisk;
  let svc: StartedService;
  let client: ApiClient;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'upscaler-e2e-storage-full-'));
    chmodSync(dataDir, 0o711);
    disk = await mountSmallDisk(320 * 1024 * 1024, join(dataDir, 'disk'));
    chmodSync(disk.dir, 0o711);
    svc = await startService({
      dataDir: disk.dir,
      env: { UPSCALE_OPERATOR_TOKEN: OPERATOR_TOKEN, UPSCALE_RATE_LIMIT_PER_MINUTE: '10000' },
    });
    client = new ApiClient(svc.apiUrl, (await createAccountWithKey(svc.apiUrl, OPERATOR_TOKEN, { credits: 30 })).key);
  }, 240_000);
  afterAll(async () => {
    await svc?.kill();
    await disk?.unmount();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('503 with Retry-After while full, nothing reserved or left behind, readiness down; accepted again once freed', async () => {
    const image = await gradientImage(64, 64);
    const before = (await disk.files('objects')).sort();
    await disk.fill();
    const refused = await client.upload(image, { target: '2k' }, { headers: { 'idempotency-key': 'full-1' } });
    expect([refused.status, refused.headers.get('retry-after'), refused.body]).toEqual([
      503,
      '5',
      { error: { code: 'service_unavailable', message: 'Storage is full for the moment; nothing was created or charged. Retry shortly.' } },
    ]);
    const account = (await client.get('/account')).body;
    expect([account.balance, account.reserved, account.charged]).toEqual([30, 0, 0]);
    expect([(await disk.files('objects')).sort(), await disk.files('tmp')]).toEqual([before, []]);
    const ready = await fetch(`${svc.baseUrl}/health/ready`);
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toContain('ENOSPC');

    await disk.free();
    const accepted = await client.upload(image, { target: '2k' }, { headers: { 'idempotency-key': 'full-1' } });
    expect(accepted.status).toBe(202);
    expect((await client.waitForFinal(accepted.body.id)).status).toBe('succeeded');
  }, 120_000);
});
