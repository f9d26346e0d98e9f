import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { DomainError, isId, newId, streams, type AccountView } from '@upscaler/contracts';
import { accountDecider, MAX_CONCURRENT_JOBS_LIMIT, type AccountCommand } from '@upscaler/domain';
import { handleCommand } from '@upscaler/eventstore';
import type { AccountBalance } from '@upscaler/read-models';
import { eventMetadata, RUNTIME, type Runtime } from '@upscaler/runtime';
import { parseBody } from '../http/parse-body';

const CreateAccountBody = z.object({
  name: z.string().trim().min(1).max(200),
  credits: z.number().int().min(0).max(1_000_000_000).optional(),
});
const GrantCreditsBody = z.object({ amount: z.number().int().positive().max(1_000_000_000) });
const UpdateAccountBody = z.object({
  max_concurrent_jobs: z.number().int().min(1).max(MAX_CONCURRENT_JOBS_LIMIT).nullable(),
});

/**
 * Operator API and GET /account (DESIGN 6). Accounts are `account-…` streams (opening, grants,
 * settings); balances come from the balance projection, which the append of every reservation and
 * every final job event updates in its own transaction, so an answer is exact the moment it is given.
 */
@Injectable()
export class AccountsService {
  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

  async create(body: unknown): Promise<AccountBalance> {
    const input = parseBody(CreateAccountBody, body);
    const accountId = newId('acct');
    await this.decide(accountId, { type: 'OpenAccount', data: { accountId, name: input.name, credits: input.credits ?? 0, now: this.now() } });
    return this.forOperator(accountId);
  }

  /** The account as its own keys see it (DESIGN 6's account object). */
  async get(accountId: string): Promise<AccountView> {
    const { max_concurrent_jobs: _limit, ...view } = await this.forOperator(accountId);
    return view;
  }

  /** The operator's view: the account object plus its concurrent-job limit. */
  async forOperator(accountId: string): Promise<AccountBalance> {
    const account = isId(accountId, 'acct') ? await this.rt.balances.account(accountId) : null;
    if (!account) throw new DomainError('not_found', 'No account with that id.');
    return account;
  }

  async grant(accountId: string, body: unknown): Promise<AccountBalance> {
    const input = parseBody(GrantCreditsBody, body);
    await this.forOperator(accountId);
    await this.decide(accountId, { type: 'GrantCredits', data: { amount: input.amount, now: this.now() } });
    return this.forOperator(accountId);
  }

  /** PATCH /admin/accounts/{id}: the per-account limit on jobs running at once (null: the configured default). */
  async update(accountId: string, body: unknown): Promise<AccountBalance> {
    const input = parseBody(UpdateAccountBody, body);
    await this.forOperator(accountId);
    await this.decide(accountId, { type: 'SetAccountLimits', data: { maxConcurrentJobs: input.max_concurrent_jobs, now: this.now() } });
    return this.forOperator(accountId);
  }

  async load(accountId: string): Promise<void> {
    await this.forOperator(accountId);
  }

  private async decide(accountId: string, command: AccountCommand): Promise<void> {
    await handleCommand(this.rt.store, streams.account(accountId), accountDecider, command, {
      metadata: eventMetadata('api', { correlationId: accountId }),
    });
  }

  private now(): string {
    return this.rt.clock.now().toISOString();
  }
}
