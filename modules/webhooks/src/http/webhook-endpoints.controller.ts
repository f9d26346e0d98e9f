import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiKeyGuard, CurrentPrincipal, type Principal } from '@upscaler/api-keys';
import { RequireScope, singleValuedQuery } from '@upscaler/http-api';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** Webhook endpoints (docs/design.md §6): webhooks:write / webhooks:read. */
@Controller('api/v1/webhook_endpoints')
@UseGuards(ApiKeyGuard)
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @RequireScope('webhooks:write')
  create(@CurrentPrincipal() p: Principal, @Body() body: unknown) {
    return this.endpoints.create(p.accountId, body);
  }

  @Get()
  @RequireScope('webhooks:read')
  list(@CurrentPrincipal() p: Principal) {
    return this.endpoints.list(p.accountId);
  }

  @Get(':id')
  @RequireScope('webhooks:read')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.endpoints.get(p.accountId, id);
  }

  @Delete(':id')
  @HttpCode(200)
  @RequireScope('webhooks:write')
  remove(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.endpoints.remove(p.accountId, id);
  }

  @Get(':id/deliveries')
  @RequireScope('webhooks:read')
  deliveries(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() q: unknown) {
    return this.endpoints.deliveries(p.accountId, id, singleValuedQuery(q, ['limit']));
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @RequireScope('webhooks:write')
  rotateSecret(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: unknown) {
    return this.endpoints.rotateSecret(p.accountId, id, body);
  }

  @Post(':id/enable')
  @HttpCode(200)
  @RequireScope('webhooks:write')
  enable(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.endpoints.enable(p.accountId, id);
  }

  @Post(':id/test')
  @HttpCode(202)
  @RequireScope('webhooks:write')
  sendTestEvent(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.endpoints.sendTestEvent(p.accountId, id);
  }

  @Post(':id/deliveries/:delivery_id/redeliver')
  @HttpCode(202)
  @RequireScope('webhooks:write')
  redeliver(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Param('delivery_id') deliveryId: string) {
    return this.endpoints.redeliver(p.accountId, id, deliveryId);
  }
}
