import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import {
  BillingReserveRequestSchema,
  DomainError,
  streams,
  type BillingReserveReply,
  type BillingReserveRequest,
} from '@upscaler/contracts';
import { ledgerDecider, type LedgerState } from '@upscaler/domain';
import { handleCommand } from '@upscaler/eventstore';
import { TOPICS } from '@upscaler/messaging';
import { eventMetadata, RUNTIME, type Runtime } from '@upscaler/runtime';
import { inSpan } from '@upscaler/tracing';
import { PerKeyQueue } from './per-key-queue';

/**
 * Answers `upscale.billing.reserve.v1` (DESIGN 2): reserve a job's credits on the account's ledger
 * stream. Optimistic concurrency on the stream means concurrent submits can never overdraw it.
 * Idempotent per job: asking twice reserves once. Reservations of one account run one at a time in
 * this process (they would only conflict on the stream); other accounts' run side by side.
 */
@Injectable()
export class ReserveResponder implements OnApplicationBootstrap {
  private readonly perAccount = new PerKeyQueue();

  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.rt.transport.reply(TOPICS.billingReserve, (payload: unknown) => this.reserve(payload));
  }

  async reserve(payload: unknown): Promise<BillingReserveReply> {
    const req = BillingReserveRequestSchema.parse(payload);
    return inSpan('billing.reserve', { 'upscaler.job_id': req.jobId }, req, () =>
      this.perAccount.run(req.accountId, () => this.reserveInSpan(req)),
    );
  }

  private async reserveInSpan(req: BillingReserveRequest): Promise<BillingReserveReply> {
    const stream = streams.account(req.accountId);
    try {
      const { newState } = await handleCommand(
        this.rt.store,
        stream,
        ledgerDecider,
        { type: 'ReserveCredits', data: { jobId: req.jobId, amount: req.amount, now: this.rt.clock.now().toISOString() } },
        { retries: 20, metadata: eventMetadata('billing', { correlationId: req.jobId }) },
      );
      return { ok: true, available: (newState as LedgerState).available };
    } catch (e) {
      if (e instanceof DomainError && e.code === 'insufficient_credits') {
        return { ok: false, code: 'insufficient_credits', message: e.message };
      }
      if (e instanceof DomainError && e.code === 'not_found') {
        return { ok: false, code: 'account_not_found', message: e.message };
      }
      throw e;
    }
  }
}
