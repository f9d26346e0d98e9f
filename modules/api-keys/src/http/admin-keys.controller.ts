import { Body, Controller, Delete, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { OperatorGuard } from '@upscaler/http-api';
import { ACCOUNT_LOOKUP, type AccountLookup } from './account-lookup.port';
import { ApiKeysService } from './api-keys.service';

/** The operator's key endpoints (docs/design.md §6), bearer UPSCALE_OPERATOR_TOKEN: any account's keys. */
@Controller('api/v1/admin')
@UseGuards(OperatorGuard)
export class AdminKeysController {
  constructor(
    private readonly keys: ApiKeysService,
    @Inject(ACCOUNT_LOOKUP) private readonly accounts: AccountLookup,
  ) {}

  @Post('accounts/:id/keys')
  async create(@Param('id') id: string, @Body() body: unknown) {
    await this.accounts.load(id);
    return this.keys.create(id, body);
  }

  @Delete('keys/:id')
  @HttpCode(200)
  revoke(@Param('id') id: string) {
    return this.keys.revoke(id, undefined);
  }
}
