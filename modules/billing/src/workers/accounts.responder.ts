import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { isDomainError } from '@upscaler/contracts';
import { BillingAccountCommandSchema, type BillingAccountCommand, type BillingAccountReply } from '../messages/billing-accounts';
import { AccountCommandHandler } from '../billing.command-handlers';
import { type AccountCommand } from '../model/account.commands';
import { TOPICS, type EventTransport } from '@upscaler/messaging';
import { eventMetadata, TRANSPORT } from '@upscaler/runtime';

/**
 * Answers `upscale.billing.accounts.v1` (docs/design.md §2: only billing writes account streams): opens
 * accounts, grants credits and sets the concurrent-job limit for the api's operator routes. The
 * balance projection applies each in the append's transaction, so the api reads the result at once.
 */
@Injectable()
export class AccountsResponder implements OnApplicationBootstrap {
  constructor(
    private readonly accounts: AccountCommandHandler,
    @Inject(TRANSPORT) private readonly transport: EventTransport,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.transport.reply(TOPICS.billingAccounts, (payload: unknown) => this.handle(payload));
  }

  async handle(payload: unknown): Promise<BillingAccountReply> {
    const req = BillingAccountCommandSchema.parse(payload);
    try {
      await this.accounts.handle(req.accountId, this.commandOf(req), {
        metadata: eventMetadata('billing', { correlationId: req.accountId }),
      });
      return { ok: true };
    } catch (e) {
      if (isDomainError(e) && (e.code === 'invalid_request' || e.code === 'not_found' || e.code === 'conflict')) {
        return { ok: false, code: e.code, message: e.message };
      }
      throw e;
    }
  }

  private commandOf(req: BillingAccountCommand): AccountCommand {
    const now = this.accounts.now().toISOString();
    switch (req.op) {
      case 'open':
        return { type: 'OpenAccount', data: { accountId: req.accountId, name: req.name, credits: req.credits, now } };
      case 'grant':
        return { type: 'GrantCredits', data: { amount: req.amount, now } };
      case 'limits':
        return { type: 'SetAccountLimits', data: { maxConcurrentJobs: req.maxConcurrentJobs, now } };
    }
  }
}
