import { createAccountWithKey, gradientImage, waitFor, writeSlowX3RegistryFile } from '@upscaler/testing';
import { useDeployment } from './distributed-harness';

/**
 * Shutdown: SIGTERM to a busy processor process (distributed mode). The processor stops
 * taking work, and when its grace period (UPSCALE_SHUTDOWN_GRACE_MS) runs out before the job ends it
 * stops between tiles and hands the job back (JobAttemptLost, no backoff). It exits 0; the next
 * processor finishes the job once and it is charged once.
 */

const dist = useDeployment({
  env: {
    UPSCALE_SHUTDOWN_GRACE_MS: '300',
    UPSCALE_RETRY_DELAY_MS: '200',
    // x3 on the converted esrgan-medium-x3 for the balanced tier (libs/testing registry.ts): seconds a job.
    UPSCALE_ENGINE_REGISTRY: writeSlowX3RegistryFile(),
  },
});

async function count(type: string, jobId: string): Promise<number> {
  const r = await dist.db.query(`SELECT count(*)::int AS n FROM events WHERE type = $1 AND (data->>'jobId') = $2`, [type, jobId]);
  return r.rows[0].n as number;
}

it('a SIGTERMed busy processor hands its job back, exits 0, and the job finishes once, charged once', async () => {
  const { client } = await createAccountWithKey(dist.d.api.apiUrl, dist.d.env.UPSCALE_OPERATOR_TOKEN, { credits: 20 });
  // Long enough to be mid-run when the signal arrives: 384x384 at 3k on the balanced tier (esrgan-medium-x3 here).
  const r = await client.upload(await gradientImage(384, 384, 'png'), { target: '3k', quality: 'balanced' });
  expect(r.status).toBe(202);
  const jobId: string = r.body.id;
  await waitFor(
    'the job to be processing',
    async () => ((await client.get(`/jobs/${jobId}`)).body.status === 'processing' ? true : undefined),
    300_000,
  );

  const exitCode = await dist.d.processors[0].stop();
  expect(exitCode).toBe(0);
  const lost = await dist.db.query(`SELECT data FROM events WHERE type = 'JobAttemptLost' AND (data->>'jobId') = $1`, [jobId]);
  expect(lost.rows.map((x) => x.data.reason)).toEqual(['handed back at shutdown']);
  expect(['pending', 'queued']).toContain((await client.get(`/jobs/${jobId}`)).body.status);

  await dist.d.startService('processor');
  const job = await waitFor(
    'the job to finish',
    async () => {
      const j = (await client.get(`/jobs/${jobId}`)).body;
      return ['succeeded', 'failed', 'cancelled'].includes(j.status) ? j : undefined;
    },
    600_000,
  );
  expect(job.status).toBe('succeeded');
  // Settled on final: the charge is in the account the moment the job reads succeeded, charged once.
  expect((await client.get('/account')).body).toMatchObject({ balance: 14, reserved: 0, charged: 6 });
  expect(await count('JobStarted', jobId)).toBe(2);
  expect(await count('JobSucceeded', jobId)).toBe(1);
});
