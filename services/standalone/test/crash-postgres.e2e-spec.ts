import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createAccountWithKey, startService, type StartedService } from '@upscaler/testing';

/**
 * Postgres gone under a running standalone (killed, as an OOM kill or a crashed node would): calls that need it
 * answer 503 service_unavailable with Retry-After, the status a client retries (docs/api.md "Errors"), not a
 * 500 internal_error that reads as a bug; readiness says 503 too. Standalone only (its Postgres is embedded).
 */
describe('the standalone with its Postgres killed', () => {
  let svc: StartedService;
  let client: Awaited<ReturnType<typeof createAccountWithKey>>['client'];

  beforeAll(async () => {
    svc = await startService({ readyTimeoutMs: 180_000 });
    ({ client } = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { credits: 5 }));
    expect((await client.get('/account')).status).toBe(200);
    // postmaster.pid's first line is the server's pid
    const pid = Number(readFileSync(join(svc.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
  });

  /** The service's own account of a failed request, for a failure message. */
  const lastFailure = () =>
    svc
      .logs()
      .split('\n')
      .filter((l) => l.includes('request failed'))
      .slice(-1)[0];

  afterAll(async () => {
    await svc?.kill();
    if (svc) rmSync(svc.dataDir, { recursive: true, force: true });
  });

  it('POST /admin/accounts answers 503 service_unavailable with Retry-After: 5', async () => {
    const res = await fetch(`${svc.apiUrl}/admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'while postgres is down', credits: 5 }),
    });
    const answer = { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
    if (answer.status !== 503) throw new Error(`answered ${answer.status}; the service logged: ${lastFailure()}`);
    expect(answer).toEqual({
      status: 503,
      retryAfter: '5',
      body: { error: { code: 'service_unavailable', message: 'The service is temporarily unavailable.' } },
    });
  });

  it('GET /jobs with a valid key answers 503 service_unavailable too', async () => {
    const res = await client.get('/jobs');
    expect({ status: res.status, retryAfter: res.headers.get('retry-after'), code: res.body?.error?.code }).toEqual({
      status: 503,
      retryAfter: '5',
      code: 'service_unavailable',
    });
  });

  it('readiness reports 503', async () => {
    expect((await fetch(`${svc.baseUrl}/health/ready`)).status).toBe(503);
  });
});
