import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { streams } from '@upscaler/contracts';
import { reservationDecider } from '@upscaler/domain';
import { handleCommand } from '@upscaler/eventstore';
import { balanceGuards, ReservationInUse } from '@upscaler/read-models';
import { eventMetadata, RUNTIME, type Runtime } from '@upscaler/runtime';

/**
 * Releases a reservation whose job never appeared (DESIGN 2): every few seconds, reservations older
 * than UPSCALE_RESERVATION_TIMEOUT_MS that no job holds are refunded (reason expired). Read from
 * billing's own projection; the release re-checks inside its transaction, so a job appended meanwhile
 * keeps its credits (and a job appended after the release is refused: its credits are gone).
 */
@Injectable()
export class ReservationSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

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
      const orphans = await this.rt.balances.heldSince(new Date(now.getTime() - this.rt.config.reservationTimeoutMs));
      for (const { jobId } of orphans) {
        try {
          const { newEvents } = await handleCommand(
            this.rt.store,
            streams.reservation(jobId),
            reservationDecider,
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
