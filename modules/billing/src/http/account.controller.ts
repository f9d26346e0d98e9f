import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiKeyGuard, CurrentPrincipal, type Principal } from '@upscaler/api-keys';
import { RequireScope } from '@upscaler/http-api';
import { AccountsService } from './accounts.service';

/** GET /account: any valid key sees its own account (docs/design.md §6). */
@Controller('api/v1/account')
@UseGuards(ApiKeyGuard)
export class AccountController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @RequireScope()
  get(@CurrentPrincipal() p: Principal) {
    return this.accounts.get(p.accountId);
  }
}
