import { Global, Module } from '@nestjs/common';
import { ACCOUNT_LOOKUP, ApiKeysModule } from '@upscaler/api-keys';
import { HttpApiModule } from '@upscaler/http-api';
import { balanceRepositoryProvider } from '../projections/balance-repository.provider';
import { AccountController } from './account.controller';
import { AccountsService } from './accounts.service';
import { billingSettingsProvider } from '../billing.config';
import { AdminAccountsController } from './admin-accounts.controller';

/**
 * GET /account and the operator's account endpoints. Accounts are billing's: their writes go to billing's workers
 * over request/reply. Global so that it can bind ACCOUNT_LOOKUP, the port API keys' operator endpoint needs (and
 * AccountsService, for the api's file deletion), without API keys depending on billing.
 */
@Global()
@Module({
  imports: [HttpApiModule, ApiKeysModule],
  controllers: [AccountController, AdminAccountsController],
  providers: [
    AccountsService,
    balanceRepositoryProvider,
    billingSettingsProvider,
    { provide: ACCOUNT_LOOKUP, useExisting: AccountsService },
  ],
  exports: [AccountsService, ACCOUNT_LOOKUP],
})
export class AccountsHttpModule {}
