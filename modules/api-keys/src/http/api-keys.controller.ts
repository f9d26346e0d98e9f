import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { RequireScope } from '../auth/scopes.decorator';
import { ApiKeysService } from './api-keys.service';

/** Self-service keys (docs/design.md §6): keys:write / keys:read, the caller's account only. */
@Controller('api/v1/api_keys')
@UseGuards(ApiKeyGuard)
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @RequireScope('keys:write')
  create(@CurrentPrincipal() p: Principal, @Body() body: unknown) {
    return this.keys.create(p.accountId, body, p.keyId);
  }

  @Get()
  @RequireScope('keys:read')
  list(@CurrentPrincipal() p: Principal) {
    return this.keys.list(p.accountId);
  }

  @Delete(':id')
  @HttpCode(200)
  @RequireScope('keys:write')
  revoke(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.keys.revoke(id, p.accountId);
  }
}
