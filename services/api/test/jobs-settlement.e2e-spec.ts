import { randomUUID } from 'node:crypto';
import { gradientImage } from '@upscaler/testing';
import { isFinal, ledger, newAccount, sleep, useJobsService } from './jobs-harness';

/**
 * Settled on final (docs/design.md §2), in both modes: the moment any answer shows a job final —
 * DELETE answering 200, GET /jobs/{id}, the list — GET /account already holds its refund or charge.
 * Rounds of concurrent cancels and finishes; the account is read right after each final view, and
 * must never hold credits reserved for a job already seen final, nor miss a charge already seen.
 * Half of each round is cancelled as soon as it is accepted (staggered, while the rest are still being submitted
 * and the processors finish others), so cancels both win and lose: a cancel sent after the whole round was
 * submitted could lose every race on a fast processor (a distributed CI rehearsal saw 32 of 32 succeed).
 */

const jobs = useJobsService({ env: { UPSCALE_DEFAULT_QUALITY: 'fast' } });

const PRICE = 3;

test('rounds of concurrent cancels and finishes: every final view is already settled in the account', async () => {
  const rounds = 4;
  const perRound = 8;
  const acct = await newAccount(jobs.svc, { credits: rounds * perRound * PRICE });
  const images = [await gradientImage(32, 32), await gradientImage(96, 96)];
  const seenFinal = new Map<string, string>();
  const all = new Set<string>();
  let submitting = 0;
  let checks = 0;

  /**
   * The account right after `jobId` was seen final: every job seen final before it is read is settled in it. Jobs
   * not seen final by then, accepted or still being submitted (checks run beside submits), may hold a reservation.
   */
  async function checkAfterFinal(jobId: string, status: string): Promise<void> {
    seenFinal.set(jobId, status);
    const settled = new Map(seenFinal);
    const l = await ledger(acct);
    const unseen = [...all].filter((id) => !settled.has(id)).length + submitting;
    const seenSucceeded = [...settled.values()].filter((s) => s === 'succeeded').length;
    expect({ job: jobId, reservedAtMost: l.reserved <= unseen * PRICE, chargedAtLeast: l.charged >= seenSucceeded * PRICE }).toEqual({
      job: jobId,
      reservedAtMost: true,
      chargedAtLeast: true,
    });
    checks++;
  }

  async function cancel(id: string, delayMs: number): Promise<void> {
    await sleep(delayMs);
    const res = await acct.client.delete(`/jobs/${id}`);
    if (res.status === 200) await checkAfterFinal(id, 'cancelled');
    else expect([res.status, res.body.error.code]).toEqual([409, 'conflict']);
  }

  for (let round = 0; round < rounds; round++) {
    const ids: string[] = [];
    const cancels: Promise<void>[] = [];
    for (let i = 0; i < perRound; i++) {
      submitting++;
      const r = await acct.client.upload(images[i % 2], { target: '2k' });
      expect(r.status).toBe(202);
      ids.push(r.body.id);
      all.add(r.body.id);
      submitting--;
      // Half are cancelled once accepted, concurrently with the next submits and the processor finishing others.
      if (i % 2 === 1) cancels.push(cancel(r.body.id, (i >> 1) * 15));
    }
    await Promise.all(cancels);
    // Everything else is watched until final, through GET /jobs/{id} and the list alternately.
    for (let poll = 0; [...ids].some((id) => !seenFinal.has(id)); poll++) {
      if (poll % 2 === 0) {
        for (const id of ids.filter((x) => !seenFinal.has(x))) {
          const job = (await acct.client.get(`/jobs/${id}`)).body;
          if (isFinal(job)) await checkAfterFinal(id, job.status);
        }
      } else {
        const page = (await acct.client.get('/jobs?limit=100')).body;
        for (const job of page.data)
          if (ids.includes(job.id) && !seenFinal.has(job.id) && isFinal(job)) await checkAfterFinal(job.id, job.status);
      }
      await sleep(20);
    }
  }
  const succeeded = [...seenFinal.values()].filter((s) => s === 'succeeded').length;
  const l = await ledger(acct);
  expect([checks, l]).toEqual([
    rounds * perRound,
    { balance: (rounds * perRound - succeeded) * PRICE, reserved: 0, charged: succeeded * PRICE },
  ]);
  expect(succeeded).toBeGreaterThan(0);
  expect(succeeded).toBeLessThan(rounds * perRound);
});

test('64 concurrent submits on one account all succeed, each reserved once', async () => {
  // The reservation is a guard on the balance row inside its own stream's append: nothing of the
  // account's history is read, and submits of one account no longer conflict on one ledger stream.
  const n = 64;
  const acct = await newAccount(jobs.svc, { credits: n * PRICE });
  const image = await gradientImage(16, 16);
  // As a client does (docs/api.md: 503 billing_unavailable reserved nothing, retry after Retry-After): on a loaded
  // 2-core machine billing may answer 64 reservations at once later than UPSCALE_BILLING_TIMEOUT_MS. The same key on
  // each retry, so a reservation billing made late is never a second one.
  const submit = async () => {
    const headers = { 'Idempotency-Key': randomUUID() };
    for (let tries = 1; ; tries++) {
      const r = await acct.client.upload(image, { target: '2k' }, { headers });
      if (r.status !== 503 || tries === 5) return r;
      await sleep(1000 * Number(r.headers.get('retry-after') ?? '1'));
    }
  };
  const answers = await Promise.all(Array.from({ length: n }, submit));
  expect(answers.map((a) => a.status)).toEqual(Array(n).fill(202));
  expect(new Set(answers.map((a) => a.body.id)).size).toBe(n);
  const l = await ledger(acct);
  expect(l.balance + l.reserved + l.charged).toBe(n * PRICE);
  expect(l.balance).toBe(0);
});
