import { Body, Controller, Param, UseGuards } from '@nestjs/common';
import { Endpoint, OperatorGuard } from '@upscaler/http-api';
import { ADMIN_ACCOUNT_ENDPOINTS } from './admin-accounts.routes';
import { AccountsService } from './accounts.service';

/** The operator's account endpoints (docs/design.md §6), bearer UPSCALE_OPERATOR_TOKEN. */
@Controller()
@UseGuards(OperatorGuard)
export class AdminAccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Endpoint(ADMIN_ACCOUNT_ENDPOINTS.adminCreateAccount)
  create(@Body() body: unknown) {
    return this.accounts.create(body);
  }

  @Endpoint(ADMIN_ACCOUNT_ENDPOINTS.adminGetAccount)
  get(@Param('id') id: string) {
    return this.accounts.forOperator(id);
  }

  @Endpoint(ADMIN_ACCOUNT_ENDPOINTS.adminUpdateAccount)
  update(@Param('id') id: string, @Body() body: unknown) {
    return this.accounts.update(id, body);
  }

  @Endpoint(ADMIN_ACCOUNT_ENDPOINTS.adminGrantCredits)
  grant(@Param('id') id: string, @Body() body: unknown) {
    return this.accounts.grant(id, body);
  }
}
