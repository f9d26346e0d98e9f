// What a submit's credit work costs as an account's history grows (streams stay small).
// A submit reserves the job's credits (billing: its own reservation-<job> stream, the balance checked
// by a guard inside the append's transaction) and appends JobQueued (the api: read model, balance and
// work queue applied inline). Neither reads the account's history, so the cost must be the same with
// 10 or 100,000 jobs behind it, cold (a fresh process: empty stream-state caches) or warm. Also: 64
// concurrent submits on one account against the same load spread over 64 accounts (all appends are
// serialised by the log lock; one account must not be much slower), and GET /account's read.
// Real Postgres (embedded, test settings). The history is written by SQL in the exact shape the
// projections leave it (events, charged reservations, the balance row), which takes seconds instead
// of the minutes 300,000 appends would.
// Usage: node bench/eventstore/run.js [--history 10,100000] [--samples 200]
import { streams } from '@upscaler/contracts';
import type { EventStore } from '@upscaler/eventstore';
import { createTestEventLog, startTestPostgres } from '@upscaler/testing';
import type { DataSource } from 'typeorm';
import { arg } from '../engine/args';
import { machineLine, printTable } from '../engine/table';

const PRICE = 3;

/** `jobs` finished jobs of history for the account, as the projections would have left them. */
async function writeHistory(db: DataSource, accountId: string, jobs: number): Promise<void> {
  const job = `'job_h' || $1::text || '_' || g`;
  await db.query(
    `INSERT INTO events (stream_id, version, type, data)
     SELECT 'reservation-' || ${job}, 1, 'CreditsReserved', jsonb_build_object('accountId', $1::text, 'jobId', ${job}, 'amount', ${PRICE}, 'reservedAt', now())
       FROM generate_series(1, $2::int) g`,
    [accountId, jobs],
  );
  await db.query(
    `INSERT INTO events (stream_id, version, type, data)
     SELECT 'job-' || ${job}, v, t, jsonb_build_object('jobId', ${job}, 'accountId', $1::text, 'credits', ${PRICE})
       FROM generate_series(1, $2::int) g, (VALUES (1, 'JobQueued'), (2, 'JobSucceeded')) AS e(v, t)`,
    [accountId, jobs],
  );
  await db.query(
    `INSERT INTO credit_reservations (job_id, account_id, amount, status, reserved_at, settled_at)
     SELECT ${job}, $1::text, ${PRICE}, 'charged', now(), now() FROM generate_series(1, $2::int) g`,
    [accountId, jobs],
  );
  await db.query(`UPDATE account_balances SET granted = granted + $2, charged = charged + $2 WHERE account_id = $1`, [
    accountId,
    jobs * PRICE,
  ]);
}

async function msPer(samples: number, run: () => Promise<void>): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < samples; i++) await run();
  return Number(process.hrtime.bigint() - t0) / 1e6 / samples;
}

async function main(): Promise<void> {
  const histories = arg('history', '10,100000').split(',').map(Number);
  const samples = Number(arg('samples', '200'));
  const pg = await startTestPostgres();
  try {
    // the event log as the services run it, and its reserve-and-submit (libs/testing, the middle tier's fixture)
    const log = await createTestEventLog(pg);
    const { db, balances } = log;
    const submit = (accountId: string, via?: EventStore) => log.submitJob(accountId, {}, via).then(() => undefined);
    const rows: (string | number)[][] = [];
    for (const history of histories) {
      const accountId = await log.openAccount(10 * samples * PRICE);
      const t0 = Date.now();
      await writeHistory(db, accountId, history);
      const written = Date.now() - t0;
      await db.query('ANALYZE');
      const [{ n }]: Array<{ n: string }> = await db.query(`SELECT count(*) AS n FROM events WHERE stream_id = $1`, [
        streams.account(accountId),
      ]);
      // cold: a fresh store per submit (what the first submit after a process start sees)
      const cold = await msPer(samples, () => submit(accountId, log.freshStore()));
      const warm = await msPer(samples, () => submit(accountId));
      const read = await msPer(samples, async () => void (await balances.account(accountId)));
      rows.push([history, Number(n), (written / 1000).toFixed(1), cold.toFixed(2), warm.toFixed(2), read.toFixed(3)]);
    }
    console.log(machineLine());
    printTable(
      [
        "jobs in the account's history",
        'account stream events',
        'history written (s)',
        'ms per submit (cold)',
        'ms per submit (warm)',
        'ms per GET /account read',
      ],
      rows,
    );

    // 64 concurrent submits: one account against 64 accounts.
    const concurrent = 64;
    const rounds = 5;
    const one = await log.openAccount(concurrent * rounds * PRICE);
    const many = await Promise.all(Array.from({ length: concurrent }, () => log.openAccount(rounds * PRICE)));
    const rate = async (accountOf: (i: number) => string) => {
      const t0 = process.hrtime.bigint();
      for (let r = 0; r < rounds; r++) await Promise.all(Array.from({ length: concurrent }, (_, i) => submit(accountOf(i))));
      return (concurrent * rounds) / (Number(process.hrtime.bigint() - t0) / 1e9);
    };
    const oneRate = await rate(() => one);
    const manyRate = await rate((i) => many[i]);
    const after = await balances.account(one);
    printTable(
      ['64 concurrent submits x 5 rounds', 'submits per s', 'all succeeded'],
      [
        ['one account', oneRate.toFixed(0), String(after?.reserved === concurrent * rounds * PRICE && after.balance === 0)],
        ['64 accounts', manyRate.toFixed(0), 'true'],
        ['one / many', (oneRate / manyRate).toFixed(2), ''],
      ],
    );
  } finally {
    await pg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
