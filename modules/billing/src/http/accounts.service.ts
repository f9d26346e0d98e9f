import { Inject, Injectable } from '@nestjs/common';
import { DomainError, isId, newId } from '@upscaler/contracts';
import { BillingAccountReplySchema, type BillingAccountCommand } from '../messages/billing-accounts';
import { type AccountView } from '../model/account.views';
import { RequestTimeoutError, TOPICS, type EventTransport } from '@upscaler/messaging';
import { type AccountBalance, BalanceRepository } from '../projections/balance.repository';
import { TRANSPORT } from '@upscaler/runtime';
import { parseWith } from '@upscaler/http-api';
import { CreateAccountBody, GrantCreditsBody, UpdateAccountBody } from './accounts.schemas';
import { BILLING_SETTINGS, type BillingSettings } from '../billing.config';

/**
 * Operator API and GET /account (docs/design.md §6). Accounts are `account-…` streams (opening, grants,
 * settings) that billing alone writes: the operator routes ask it over request/reply (503
 * billing_unavailable when it does not answer). Balances come from the balance projection, which the
 * append of every grant, reservation and final job event updates in its own transaction, so an
 * answer is exact the moment it is given.
 */
@Injectable()
export class AccountsService {
  constructor(
    @Inject(TRANSPORT) private readonly transport: EventTransport,
    @Inject(BILLING_SETTINGS) private readonly settings: BillingSettings,
    private readonly balances: BalanceRepository,
  ) {}

  async create(body: unknown): Promise<AccountBalance> {
    const input = parseWith(CreateAccountBody, body ?? {});
    const accountId = newId('acct');
    await this.billing({ op: 'open', accountId, name: input.name, credits: input.credits ?? 0 });
    return this.forOperator(accountId);
  }

  /** The account as its own keys see it (docs/design.md §6's account object). */
  async get(accountId: string): Promise<AccountView> {
    const { max_concurrent_jobs: _limit, ...view } = await this.forOperator(accountId);
    return view;
  }

  /** The operator's view: the account object plus its concurrent-job limit. */
  async forOperator(accountId: string): Promise<AccountBalance> {
    const account = isId(accountId, 'acct') ? await this.balances.account(accountId) : null;
    if (!account) throw new DomainError('not_found', 'No account with that id.');
    return account;
  }

  async grant(accountId: string, body: unknown): Promise<AccountBalance> {
    const input = parseWith(GrantCreditsBody, body ?? {});
    await this.forOperator(accountId);
    await this.billing({ op: 'grant', accountId, amount: input.amount });
    return this.forOperator(accountId);
  }

  /** PATCH /admin/accounts/{id}: the per-account limit on jobs running at once (null: the configured default). */
  async update(accountId: string, body: unknown): Promise<AccountBalance> {
    const input = parseWith(UpdateAccountBody, body ?? {});
    await this.forOperator(accountId);
    await this.billing({ op: 'limits', accountId, maxConcurrentJobs: input.max_concurrent_jobs });
    return this.forOperator(accountId);
  }

  async load(accountId: string): Promise<void> {
    await this.forOperator(accountId);
  }

  private async billing(command: BillingAccountCommand): Promise<void> {
    let raw: unknown;
    try {
      raw = await this.transport.request(TOPICS.billingAccounts, command, this.settings.answerTimeoutMs);
    } catch (e) {
      if (e instanceof RequestTimeoutError) throw new DomainError('billing_unavailable');
      throw e;
    }
    const reply = BillingAccountReplySchema.parse(raw);
    if (!reply.ok) throw new DomainError(reply.code, reply.message);
  }
}
