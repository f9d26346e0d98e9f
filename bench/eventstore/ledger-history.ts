// What a reserve costs as an account's ledger grows: handleCommand with its stream-state cache (only the events
// after the cached version are read) against a cold fold of the whole stream (what every command did before
// the cache, and what the first command on an account does after a restart). Real Postgres (embedded, test
// settings). Usage: node bench/eventstore/run.js [--jobs 4000] [--samples 20]
import { EVENT_STORE_MIGRATIONS, PostgresEventStore, handleCommand, type EventStore } from '@upscaler/eventstore';
import { ledgerDecider } from '@upscaler/domain';
import { startTestPostgres } from '@upscaler/testing';
import { arg } from '../engine/args';
import { machineLine, printTable } from '../engine/table';

async function main(): Promise<void> {
  const jobs = Number(arg('jobs', '4000'));
  const samples = Number(arg('samples', '20'));
  const pg = await startTestPostgres();
  try {
    const db = await pg.dataSource(EVENT_STORE_MIGRATIONS);
    const store = new PostgresEventStore(db);
    const stream = 'account-bench';
    const now = () => new Date().toISOString();
    await handleCommand(store, stream, ledgerDecider, {
      type: 'OpenAccount',
      data: { accountId: 'bench', name: 'bench', credits: 10 * jobs + 1000, now: now() },
    });
    let n = 0;
    const job = async (s: EventStore) => {
      const jobId = `job_${String(++n).padStart(8, '0')}`;
      await handleCommand(s, stream, ledgerDecider, { type: 'ReserveCredits', data: { jobId, amount: 3, now: now() } });
      await handleCommand(s, stream, ledgerDecider, { type: 'ChargeCredits', data: { jobId, now: now() } });
    };
    // a fresh wrapper object per call has its own, empty cache: a cold fold of the whole stream
    const cold = (): EventStore => ({
      append: store.append.bind(store),
      readStream: store.readStream.bind(store),
      readAll: store.readAll.bind(store),
      headPosition: store.headPosition.bind(store),
      onAppended: store.onAppended.bind(store),
    });
    const rows: (string | number)[][] = [];
    const checkpoints = [0, jobs / 8, jobs / 4, jobs / 2, jobs].map(Math.round);
    for (const target of checkpoints) {
      while (n < target) await job(store);
      const time = async (s: () => EventStore) => {
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < samples; i++) await job(s());
        return Number(process.hrtime.bigint() - t0) / 1e6 / samples / 2; // per command
      };
      const warm = await time(() => store);
      const coldMs = await time(cold);
      const events = (await store.readStream(stream)).length;
      rows.push([events, warm.toFixed(2), coldMs.toFixed(2), (coldMs / warm).toFixed(1)]);
    }
    console.log(machineLine());
    printTable(['ledger events in the account', 'ms per command (cache)', 'ms per command (cold fold)', 'cold / cache'], rows);
  } finally {
    await pg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
