import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { streams } from '@upscaler/contracts';
import { ledgerDecider } from '@upscaler/domain';
import { handleCommand } from '@upscaler/eventstore';
import { eventMetadata, RUNTIME, type Runtime } from '@upscaler/runtime';
import { ReservationsRepository } from './reservations.repository';

/**
 * Releases a reservation whose job never appeared (DESIGN 2): every few seconds, reservations older
 * than UPSCALE_RESERVATION_TIMEOUT_MS, unsettled, with no job stream, are refunded (reason expired).
 * The refund is a ledger command, so a job that appears meanwhile and settles first wins.
 */
@Injectable()
export class ReservationSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly reservations: ReservationsRepository;

  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {
    this.reservations = new ReservationsRepository(rt.db);
  }

  onApplicationBootstrap(): void {
    const every = Math.min(10_000, Math.max(500, Math.floor(this.rt.config.reservationTimeoutMs / 4)));
    this.timer = setInterval(() => void this.sweep().catch((err) => this.rt.logger.error({ err }, 'reservation sweep failed')), every);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async sweep(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let released = 0;
    try {
      const now = this.rt.clock.now();
      const orphans = await this.reservations.orphaned(new Date(now.getTime() - this.rt.config.reservationTimeoutMs));
      for (const { accountId, jobId } of orphans) {
        const { newEvents } = await handleCommand(
          this.rt.store,
          streams.account(accountId),
          ledgerDecider,
          { type: 'RefundCredits', data: { jobId, reason: 'expired', now: now.toISOString() } },
          { retries: 20, metadata: eventMetadata('billing', { correlationId: jobId }) },
        );
        released += newEvents.length;
      }
    } finally {
      this.running = false;
    }
    return released;
  }
}
