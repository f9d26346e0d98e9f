import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ReservationCommandHandler } from '../billing.command-handlers';
import { balanceGuards, ReservationInUse, BalanceRepository } from '../projections/balance.repository';
import { eventMetadata, LOGGER, RepeatingTask } from '@upscaler/runtime';
import { type Logger } from '@upscaler/config';
import { BILLING_SETTINGS, type BillingSettings } from '../billing.config';

/**
 * Releases a reservation whose job never appeared (docs/design.md §2): every few seconds, reservations older
 * than UPSCALE_RESERVATION_TIMEOUT_MS that no job holds are refunded (reason expired). Read from
 * billing's own projection; the release re-checks inside its transaction, so a job appended meanwhile
 * keeps its credits (and a job appended after the release is refused: its credits are gone).
 */
@Injectable()
export class ReservationSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: RepeatingTask;
  private running = false;

  constructor(
    private readonly reservations: ReservationCommandHandler,
    @Inject(BILLING_SETTINGS) private readonly settings: BillingSettings,
    @Inject(LOGGER) logger: Logger,
    private readonly balances: BalanceRepository,
  ) {
    const every = Math.min(10_000, Math.max(500, Math.floor(settings.reservationTimeoutMs / 4)));
    this.task = new RepeatingTask(
      'reservation sweep',
      async () => void (await this.sweep()),
      () => every,
      logger,
    );
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): void {
    this.task.stop();
  }

  async sweep(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let released = 0;
    try {
      const now = this.reservations.now();
      const orphans = await this.balances.heldSince(new Date(now.getTime() - this.settings.reservationTimeoutMs));
      for (const { jobId } of orphans) {
        try {
          const { newEvents } = await this.reservations.handle(
            jobId,
            { type: 'ReleaseReservation', data: { reason: 'expired', now: now.toISOString() } },
            { guard: (tx) => balanceGuards.releasable(tx, jobId), metadata: eventMetadata('billing', { correlationId: jobId }) },
          );
          released += newEvents.length;
        } catch (e) {
          if (!(e instanceof ReservationInUse)) throw e;
        }
      }
    } finally {
      this.running = false;
    }
    return released;
  }
}
