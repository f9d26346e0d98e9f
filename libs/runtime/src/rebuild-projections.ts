import { txOf } from '@upscaler/eventstore';
import type { Runtime } from './runtime';

/**
 * docs/design.md §2: every projection is rebuildable from position 0. Empties the inline projections (read
 * models, balances, the work queue) and applies the whole log again in position order, in batches,
 * each under the log lock. Run it with the services stopped: leases are not events, so jobs that were
 * processing come back as processing without a lease, which the sweeper treats as a lost attempt.
 */
export async function rebuildProjections(rt: Pick<Runtime, 'db' | 'eventLog' | 'inlineProjections'>, batch = 1000): Promise<number> {
  await rt.db.transaction(async (manager) => {
    for (const p of [...rt.inlineProjections].reverse()) await p.reset(txOf(manager.queryRunner!));
  });
  let after = 0;
  let count = 0;
  for (;;) {
    const events = await rt.eventLog.readAll(after, batch);
    if (events.length === 0) break;
    await rt.eventLog.projectInline(events);
    count += events.length;
    after = events[events.length - 1].position;
  }
  return count;
}
