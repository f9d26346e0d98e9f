import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { streams } from '@upscaler/contracts';
import { expiredReservations, ledgerDecider, type LedgerState } from '@upscaler/domain';
import { handleCommand } from '@upscaler/eventstore';
import type { RunningSubscription } from '@upscaler/messaging';
import { RUNTIME, type Runtime } from '@upscaler/runtime';

/**
 * Releases a reservation whose job never appeared (the api died between reserve and append, or gave
 * up waiting for billing's answer): DESIGN 2. It keeps the set of accounts with open reservations
 * from the ledger events it consumes, and every few seconds refunds reservations older than
 * UPSCALE_RESERVATION_TIMEOUT_MS whose job stream does not exist.
 */
@Injectable()
export class ReservationSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private sub: RunningSubscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly accounts = new Set<string>();
  private running = false;

  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

  async onApplicationBootstrap(): Promise<void> {
    this.sub = await this.rt.transport.subscribe({
      consumer: `billing-reservations-${process.pid}-${Date.now()}`,
      categories: ['account'],
      handle: async (e) => {
        if (e.type === 'CreditsReserved') this.accounts.add((e.data as { accountId: string }).accountId);
      },
    });
    const every = Math.min(10_000, Math.max(500, Math.floor(this.rt.config.reservationTimeoutMs / 4)));
    this.timer = setInterval(() => void this.sweep().catch((err) => this.rt.logger.error({ err }, 'reservation sweep failed')), every);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sub?.stop();
  }

  async sweep(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let released = 0;
    try {
      const now = this.rt.clock.now();
      for (const accountId of [...this.accounts]) {
        const events = await this.rt.store.readStream(streams.account(accountId));
        const state = events.reduce((s, e) => ledgerDecider.evolve(s, e as never), ledgerDecider.initialState()) as LedgerState;
        const expired = expiredReservations(state, now.toISOString(), this.rt.config.reservationTimeoutMs);
        if (Object.keys(state.reservations).length === 0) this.accounts.delete(accountId);
        for (const { jobId } of expired) {
          const jobEvents = await this.rt.store.readStream(streams.job(jobId));
          if (jobEvents.length > 0) continue;
          const { newEvents } = await handleCommand(this.rt.store, streams.account(accountId), ledgerDecider, {
            type: 'RefundCredits',
            data: { jobId, reason: 'expired', now: now.toISOString() },
          });
          await this.rt.projector.apply(newEvents);
          released += newEvents.length;
        }
      }
    } finally {
      this.running = false;
    }
    return released;
  }
}
