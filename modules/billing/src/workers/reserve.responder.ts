import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DomainError } from '@upscaler/contracts';
import {
  BillingReleaseRequestSchema,
  BillingReserveRequestSchema,
  type BillingReserveReply,
  type BillingReserveRequest,
} from '../messages/billing-reserve';
import { ReservationCommandHandler } from '../billing.command-handlers';
import { TOPICS, type EventTransport } from '@upscaler/messaging';
import { balanceGuards, ReservationInUse, BalanceRepository } from '../projections/balance.repository';
import { eventMetadata, TRANSPORT } from '@upscaler/runtime';
import { inSpan } from '@upscaler/tracing';

/**
 * Answers `upscale.billing.reserve.v1` (docs/design.md §2): reserves a job's credits in the job's own
 * `reservation-…` stream. The balance is checked by a guard inside the append's transaction (under
 * the log lock), so concurrent submits can never overdraw an account, and the cost does not depend on
 * how many jobs the account ever ran. Idempotent per job: asking twice reserves once.
 * Also answers `upscale.billing.release.v1`: the api gave a job up before creating it.
 */
@Injectable()
export class ReserveResponder implements OnApplicationBootstrap {
  constructor(
    private readonly reservations: ReservationCommandHandler,
    @Inject(TRANSPORT) private readonly transport: EventTransport,
    private readonly balances: BalanceRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.transport.reply(TOPICS.billingReserve, (payload: unknown) => this.reserve(payload));
    await this.transport.reply(TOPICS.billingRelease, (payload: unknown) => this.release(payload));
  }

  async reserve(payload: unknown): Promise<BillingReserveReply> {
    const req = BillingReserveRequestSchema.parse(payload);
    return inSpan('billing.reserve', { 'upscaler.job_id': req.jobId }, req, () => this.reserveInSpan(req));
  }

  /** Releases a reservation whose job was never created; one whose job exists keeps its credits. */
  async release(payload: unknown): Promise<{ released: boolean }> {
    const req = BillingReleaseRequestSchema.parse(payload);
    try {
      const { newEvents } = await this.reservations.handle(
        req.jobId,
        { type: 'ReleaseReservation', data: { reason: 'released', now: this.reservations.now().toISOString() } },
        { guard: (tx) => balanceGuards.releasable(tx, req.jobId), metadata: eventMetadata('billing', { correlationId: req.jobId }) },
      );
      return { released: newEvents.length > 0 };
    } catch (e) {
      if (e instanceof ReservationInUse) return { released: false };
      throw e;
    }
  }

  private async reserveInSpan(req: BillingReserveRequest): Promise<BillingReserveReply> {
    if (req.answerBy !== undefined && this.reservations.now().getTime() > Date.parse(req.answerBy)) {
      return { ok: false, code: 'too_late', message: `The request was read after ${req.answerBy}, when its sender stopped waiting.` };
    }
    try {
      await this.reservations.handle(
        req.jobId,
        {
          type: 'ReserveCredits',
          data: { accountId: req.accountId, jobId: req.jobId, amount: req.amount, now: this.reservations.now().toISOString() },
        },
        {
          guard: (tx) => balanceGuards.reservable(tx, req.accountId, req.jobId, req.amount),
          metadata: eventMetadata('billing', { correlationId: req.jobId }),
        },
      );
      const account = await this.balances.account(req.accountId);
      return { ok: true, available: account?.balance ?? 0 };
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
