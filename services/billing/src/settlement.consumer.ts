import { Inject, Injectable } from '@nestjs/common';
import { streams, type JobQueuedData, type StoredEvent } from '@upscaler/contracts';
import { ledgerDecider } from '@upscaler/domain';
import { handleCommand } from '@upscaler/eventstore';
import { eventMetadata, EventLogConsumer, RUNTIME, type Runtime } from '@upscaler/runtime';
import { inSpan } from '@upscaler/tracing';

/**
 * Exactly one of charge/refund follows every reservation (DESIGN 2): charge on JobSucceeded, refund
 * on JobFailed or JobCancelled. Idempotent: the ledger decider ignores a second settlement, so a
 * redelivered or replayed event changes nothing.
 */
@Injectable()
export class SettlementConsumer extends EventLogConsumer {
  constructor(@Inject(RUNTIME) rt: Runtime) {
    super(rt, { consumer: 'billing-settlement', categories: ['job'] });
  }

  async handle(event: StoredEvent): Promise<void> {
    const settlement =
      event.type === 'JobSucceeded'
        ? ({ type: 'ChargeCredits' } as const)
        : event.type === 'JobFailed'
          ? ({ type: 'RefundCredits', reason: 'failed' } as const)
          : event.type === 'JobCancelled'
            ? ({ type: 'RefundCredits', reason: 'cancelled' } as const)
            : undefined;
    if (!settlement) return;
    const first = (await this.rt.store.readStream(event.streamId))[0];
    const queued = first?.data as JobQueuedData | undefined;
    if (!queued) return;
    const now = this.rt.clock.now().toISOString();
    const command =
      settlement.type === 'ChargeCredits'
        ? { type: 'ChargeCredits' as const, data: { jobId: queued.jobId, now } }
        : { type: 'RefundCredits' as const, data: { jobId: queued.jobId, reason: settlement.reason, now } };
    await inSpan('billing.settle', { 'upscaler.job_id': queued.jobId, 'upscaler.settlement': command.type }, event.metadata, async () => {
      const { newEvents } = await handleCommand(this.rt.store, streams.account(queued.accountId), ledgerDecider, command, {
        retries: 20,
        metadata: eventMetadata('billing', { correlationId: queued.jobId, causationId: `${event.position}` }),
      });
      await this.rt.projector.apply(newEvents);
    });
  }
}
