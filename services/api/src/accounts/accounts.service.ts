import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { DomainError, isId, newId, streams, type AccountView } from '@upscaler/contracts';
import { ledgerDecider, toAccountView, type LedgerState, foldEvents } from '@upscaler/domain';
import { handleCommand } from '@upscaler/eventstore';
import { RUNTIME, type Runtime } from '@upscaler/runtime';
import { parseBody } from '../http/parse-body';

const CreateAccountBody = z.object({
  name: z.string().trim().min(1).max(200),
  credits: z.number().int().min(0).max(1_000_000_000).optional(),
});
const GrantCreditsBody = z.object({ amount: z.number().int().positive().max(1_000_000_000) });

/** Operator API and GET /account (DESIGN 6): accounts are `account-…` ledger streams. */
@Injectable()
export class AccountsService {
  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

  async create(body: unknown): Promise<AccountView> {
    const input = parseBody(CreateAccountBody, body);
    const accountId = newId('acct');
    const { newState, newEvents } = await handleCommand(this.rt.store, streams.account(accountId), ledgerDecider, {
      type: 'OpenAccount',
      data: { accountId, name: input.name, credits: input.credits ?? 0, now: this.now() },
    });
    await this.rt.projector.apply(newEvents);
    return toAccountView(newState as LedgerState);
  }

  async get(accountId: string): Promise<AccountView> {
    return toAccountView(await this.load(accountId));
  }

  async grant(accountId: string, body: unknown): Promise<AccountView> {
    const input = parseBody(GrantCreditsBody, body);
    await this.load(accountId);
    const { newState, newEvents } = await handleCommand(this.rt.store, streams.account(accountId), ledgerDecider, {
      type: 'GrantCredits',
      data: { amount: input.amount, now: this.now() },
    });
    await this.rt.projector.apply(newEvents);
    return toAccountView(newState as LedgerState);
  }

  async load(accountId: string): Promise<LedgerState> {
    if (!isId(accountId, 'acct')) throw new DomainError('not_found', 'No account with that id.');
    // The ledger is read from its stream, not a projection: balances are always exact.
    const events = await this.rt.store.readStream(streams.account(accountId));
    if (events.length === 0) throw new DomainError('not_found', 'No account with that id.');
    return foldEvents(ledgerDecider, events as never);
  }

  private now(): string {
    return this.rt.clock.now().toISOString();
  }
}
