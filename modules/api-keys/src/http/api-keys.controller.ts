import { Body, Controller, Param, UseGuards } from '@nestjs/common';
import { Endpoint } from '@upscaler/http-api';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { API_KEY_ENDPOINTS } from './api-keys.routes';
import { ApiKeysService } from './api-keys.service';

/** Self-service keys (docs/design.md §6): keys:write / keys:read, the caller's account only. */
@Controller()
@UseGuards(ApiKeyGuard)
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Endpoint(API_KEY_ENDPOINTS.create)
  create(@CurrentPrincipal() p: Principal, @Body() body: unknown) {
    return this.keys.create(p.accountId, body, p.keyId);
  }

  @Endpoint(API_KEY_ENDPOINTS.list)
  list(@CurrentPrincipal() p: Principal) {
    return this.keys.list(p.accountId);
  }

  @Endpoint(API_KEY_ENDPOINTS.revoke)
  revoke(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.keys.revoke(id, p.accountId);
  }
}
