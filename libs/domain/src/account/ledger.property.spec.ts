import { DomainError, isDomainError, type AccountEvent } from '@upscaler/contracts';
import { foldEvents } from '../decider';
import { seededRandom } from '../testing/seeded-random';
import { T0, at } from '../testing/job-fixtures';
import type { LedgerCommand } from './ledger.commands';
import { ledgerDecider, ledgerInvariantHolds } from './ledger.decider';

/**
 * Property: whatever sequence of commands arrives (repeats, charges for unknown jobs, refunds after
 * charges, reservations beyond the balance), the ledger never breaks DESIGN 2's invariant, never goes
 * below zero, and settles each reservation at most once. Seeded, so a failure replays exactly.
 */
const SEEDS = [1, 2, 3, 42, 1234, 99991];
const STEPS = 1_500;

function randomCommand(random: () => number, step: number): LedgerCommand {
  const now = at(step * 1_000);
  // Mostly recent jobs, so repeats, late charges and refunds of settled jobs all happen.
  const jobId = `job_${Math.max(0, step - Math.floor(random() * 40))}`;
  const r = random();
  if (r < 0.08) return { type: 'GrantCredits', data: { amount: 1 + Math.floor(random() * 20), now } };
  if (r < 0.5) return { type: 'ReserveCredits', data: { jobId, amount: [3, 6, 9][Math.floor(random() * 3)]!, now } };
  if (r < 0.72) return { type: 'ChargeCredits', data: { jobId, now } };
  const reason = (['failed', 'cancelled', 'expired'] as const)[Math.floor(random() * 3)]!;
  return { type: 'RefundCredits', data: { jobId, reason, now } };
}

describe('ledger property: the invariant holds under random command sequences', () => {
  it.each(SEEDS)('seed %i', (seed) => {
    const random = seededRandom(seed);
    let state = foldEvents(ledgerDecider, [
      { type: 'AccountOpened', data: { accountId: 'acct_p', name: 'P', openedAt: T0 } },
      { type: 'CreditsGranted', data: { accountId: 'acct_p', amount: 30, grantedAt: T0 } },
    ] satisfies AccountEvent[]);
    const settlements = new Map<string, number>();
    const counts = { events: 0, refusals: 0 };
    for (let step = 1; step <= STEPS; step++) {
      const command = randomCommand(random, step);
      let events: AccountEvent[];
      try {
        events = ledgerDecider.decide(command, state);
      } catch (e) {
        if (!isDomainError(e) || e.code !== 'insufficient_credits') throw e;
        counts.refusals++;
        // A refusal is only correct when the balance really is too low.
        expect(command.type === 'ReserveCredits' && state.available < command.data.amount).toBe(true);
        continue;
      }
      for (const e of events) {
        if (e.type === 'CreditsCharged' || e.type === 'CreditsRefunded') {
          settlements.set(e.data.jobId, (settlements.get(e.data.jobId) ?? 0) + 1);
        }
      }
      counts.events += events.length;
      state = foldEvents(ledgerDecider, events, state);
      if (!ledgerInvariantHolds(state)) {
        throw new DomainError('internal_error', `invariant broken at step ${step} (seed ${seed}) by ${JSON.stringify(command)}`);
      }
    }
    // Each job id is reserved at most once, so it is settled at most once.
    expect(Math.max(0, ...settlements.values())).toBeLessThanOrEqual(1);
    expect(state.available).toBeGreaterThanOrEqual(0);
    // The run exercised both paths (not a test that cannot fail).
    expect(counts.events).toBeGreaterThan(20);
    expect(counts.refusals).toBeGreaterThan(0);
  });
});
