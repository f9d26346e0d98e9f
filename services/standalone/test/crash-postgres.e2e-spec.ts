import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createAccountWithKey, gradientImage, startService, type StartedService } from '@upscaler/testing';

/**
 * The standalone supervises its embedded Postgres (docs/runbooks.md "The standalone's Postgres died"). Killed (as an
 * OOM kill or a crash would), the postmaster is started again by the service and every call works again by itself.
 * While it cannot be started, calls that need it answer 503 service_unavailable with Retry-After (a status a client
 * retries, not a 500 that reads as a bug), readiness says 503 and liveness 200 (the service is recovering); once it
 * can, the service recovers. If it never can, the standalone exits with status 75 so that its own supervisor starts
 * it afresh: never 503 forever behind a healthy liveness. Standalone only (its Postgres is embedded).
 */
/** The running postmaster's pid (postmaster.pid's first line); null while there is none (between two starts). */
const postmasterPid = (svc: StartedService): number | null => {
  try {
    return Number(readFileSync(join(svc.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
  } catch {
    return null;
  }
};
/** Postgres refuses to start on a data directory it cannot read: a restart that keeps failing until chmod'ed back. */
const breakDataDir = (svc: StartedService) => chmodSync(join(svc.dataDir, 'postgres'), 0o000);
const repairDataDir = (svc: StartedService) => chmodSync(join(svc.dataDir, 'postgres'), 0o700);

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await probe())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}

describe('the standalone with its Postgres killed', () => {
  let svc: StartedService;
  let client: Awaited<ReturnType<typeof createAccountWithKey>>['client'];

  beforeAll(async () => {
    svc = await startService({ readyTimeoutMs: 180_000, env: { UPSCALE_DEFAULT_QUALITY: 'fast', UPSCALE_RATE_LIMIT_PER_MINUTE: '10000' } });
    ({ client } = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { credits: 9 }));
    expect((await client.get('/account')).status).toBe(200);
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

  it('killed: the service starts it again and a job submitted afterwards succeeds', async () => {
    const before = postmasterPid(svc)!;
    process.kill(before, 'SIGKILL');
    // A pooled connection's backend can still answer for a moment after its postmaster died: wait for the new one.
    const ms = await waitFor(
      'a new postmaster, and GET /account answering 200 through it',
      async () => ![null, before].includes(postmasterPid(svc)) && (await client.get('/account')).status === 200,
      60_000,
    );
    console.log(`embedded Postgres SIGKILLed: the standalone answered again through a new postmaster ${ms} ms later`);
    const job = await client.upload(await gradientImage(16, 16), { target: '2k' });
    expect(job.status).toBe(202);
    expect((await client.waitForFinal(job.body.id)).status).toBe('succeeded');
  }, 120_000);

  describe('killed while it cannot be started', () => {
    beforeAll(async () => {
      breakDataDir(svc);
      process.kill(postmasterPid(svc)!, 'SIGKILL');
      // its backends notice the postmaster's death within moments; from then on nothing answers
      await new Promise((r) => setTimeout(r, 500));
    });
    afterAll(() => repairDataDir(svc));

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

    it('readiness reports 503 while liveness stays 200 (it is restarting its database)', async () => {
      expect([(await fetch(`${svc.baseUrl}/health/ready`)).status, (await fetch(`${svc.baseUrl}/health/live`)).status]).toEqual([503, 200]);
    });

    it('once it can be started, the service recovers by itself', async () => {
      repairDataDir(svc);
      const ms = await waitFor('GET /account to answer 200 again', async () => (await client.get('/account')).status === 200, 60_000);
      console.log(`embedded Postgres startable again: the standalone answered ${ms} ms later`);
      // the LISTEN connections reconnect on their own backoff: readiness follows within seconds
      await waitFor('readiness to answer 200 again', async () => (await fetch(`${svc.baseUrl}/health/ready`)).status === 200, 30_000);
    }, 90_000);
  });

  it('never startable again: the standalone exits with status 75 for its supervisor', async () => {
    breakDataDir(svc);
    const exited = new Promise<number | null>((resolve) => svc.process!.once('exit', (code) => resolve(code)));
    const started = Date.now();
    process.kill(postmasterPid(svc)!, 'SIGKILL');
    const code = await exited;
    console.log(`embedded Postgres not startable: the standalone exited ${Date.now() - started} ms later with ${code}`);
    repairDataDir(svc);
    expect(code).toBe(75);
    expect(svc.logs()).toContain('could not be restarted; exiting');
  }, 120_000);
});
