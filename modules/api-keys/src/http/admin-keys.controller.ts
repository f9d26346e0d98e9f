import { Body, Controller, Inject, Param, UseGuards } from '@nestjs/common';
import { Endpoint, OperatorGuard } from '@upscaler/http-api';
import { ACCOUNT_LOOKUP, type AccountLookup } from './account-lookup.port';
import { ADMIN_KEY_ENDPOINTS } from './admin-keys.routes';
import { ApiKeysService } from './api-keys.service';

/** The operator's key endpoints (docs/design.md §6), bearer UPSCALE_OPERATOR_TOKEN: any account's keys. */
@Controller()
@UseGuards(OperatorGuard)
export class AdminKeysController {
  constructor(
    private readonly keys: ApiKeysService,
    @Inject(ACCOUNT_LOOKUP) private readonly accounts: AccountLookup,
  ) {}

  @Endpoint(ADMIN_KEY_ENDPOINTS.create)
  async create(@Param('id') id: string, @Body() body: unknown) {
    await this.accounts.load(id);
    return this.keys.create(id, body);
  }

  @Endpoint(ADMIN_KEY_ENDPOINTS.revoke)
  revoke(@Param('id') id: string) {
    return this.keys.revoke(id, undefined);
  }
}
