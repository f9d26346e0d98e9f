import { Controller, UseGuards } from '@nestjs/common';
import { ApiKeyGuard, CurrentPrincipal, type Principal } from '@upscaler/api-keys';
import { Endpoint } from '@upscaler/http-api';
import { ACCOUNT_ENDPOINTS } from './account.routes';
import { AccountsService } from './accounts.service';

/** GET /account: any valid key sees its own account (docs/design.md §6). */
@Controller()
@UseGuards(ApiKeyGuard)
export class AccountController {
  constructor(private readonly accounts: AccountsService) {}

  @Endpoint(ACCOUNT_ENDPOINTS.getAccount)
  get(@CurrentPrincipal() p: Principal) {
    return this.accounts.get(p.accountId);
  }
}
