import { Client } from 'pg';
import { createAccountWithKey, gradientImage, startDeployment, writeSlowX3RegistryFile, type Deployment } from '@upscaler/testing';

/**
 * Issue 5, shutdown: SIGTERM to a busy processor process (distributed mode). The processor stops
 * taking work, and when its grace period (UPSCALE_SHUTDOWN_GRACE_MS) runs out before the job ends it
 * stops between tiles and hands the job back (JobAttemptLost, no backoff). It exits 0; the next
 * processor finishes the job once and it is charged once.
 */
let d: Deployment;
let db: Client;

beforeAll(async () => {
  d = await startDeployment({
    processors: 1,
    env: {
      UPSCALE_SHUTDOWN_GRACE_MS: '300',
      UPSCALE_RETRY_DELAY_MS: '200',
      UPSCALE_BILLING_TIMEOUT_MS: '30000',
      // x3 on the converted esrgan-medium-x3 for the balanced tier (libs/testing registry.ts): seconds a job.
      UPSCALE_ENGINE_REGISTRY: writeSlowX3RegistryFile(),
    },
  });
  db = new Client({ connectionString: d.postgres.url });
  await db.connect();
}, 1_800_000);

afterAll(async () => {
  await db?.end();
  await d?.stop();
}, 300_000);

async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function count(type: string, jobId: string): Promise<number> {
  const r = await db.query(`SELECT count(*)::int AS n FROM events WHERE type = $1 AND (data->>'jobId') = $2`, [type, jobId]);
  return r.rows[0].n as number;
}

it('a SIGTERMed busy processor hands its job back, exits 0, and the job finishes once, charged once', async () => {
  const { client } = await createAccountWithKey(d.api.apiUrl, d.env.UPSCALE_OPERATOR_TOKEN, { credits: 20 });
  // Long enough to be mid-run when the signal arrives: 384x384 at 3k on the balanced tier (esrgan-medium-x3 here).
  const r = await client.upload(await gradientImage(384, 384, 'png'), { target: '3k', quality: 'balanced' });
  expect(r.status).toBe(202);
  const jobId: string = r.body.id;
  await poll('the job to be processing', async () => ((await client.get(`/jobs/${jobId}`)).body.status === 'processing' ? true : undefined));

  const exitCode = await d.processors[0].stop();
  expect(exitCode).toBe(0);
  const lost = await db.query(`SELECT data FROM events WHERE type = 'JobAttemptLost' AND (data->>'jobId') = $1`, [jobId]);
  expect(lost.rows.map((x) => x.data.reason)).toEqual(['handed back at shutdown']);
  expect(['pending', 'queued']).toContain((await client.get(`/jobs/${jobId}`)).body.status);

  await d.startService('processor');
  const job = await poll('the job to finish', async () => {
    const j = (await client.get(`/jobs/${jobId}`)).body;
    return ['succeeded', 'failed', 'cancelled'].includes(j.status) ? j : undefined;
  }, 600_000);
  expect(job.status).toBe('succeeded');
  // Settled on final: the charge is in the account the moment the job reads succeeded, charged once.
  expect((await client.get('/account')).body).toMatchObject({ balance: 14, reserved: 0, charged: 6 });
  expect(await count('JobStarted', jobId)).toBe(2);
  expect(await count('JobSucceeded', jobId)).toBe(1);
});
