import { Module } from '@nestjs/common';
import { balanceRepositoryProvider } from '../projections/balance-repository.provider';
import { AccountsResponder } from './accounts.responder';
import { ReservationSweeper } from './reservation.sweeper';
import { ReserveResponder } from './reserve.responder';
import { billingSettingsProvider } from '../billing.config';
import { AccountCommandHandler, ReservationCommandHandler } from '../billing.command-handlers';

/**
 * The credit service (docs/design.md §1), sole writer of account and reservation streams: accounts, grants and
 * limits for the operator API, reservations and their expiry. Charges and refunds are the
 * jobs' own final events, applied to the balances in the same transaction (settled on final).
 */
@Module({
  providers: [
    AccountCommandHandler,
    ReservationCommandHandler,
    AccountsResponder,
    ReserveResponder,
    ReservationSweeper,
    balanceRepositoryProvider,
    billingSettingsProvider,
  ],
})
export class BillingWorkersModule {}
