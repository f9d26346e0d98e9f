import { Body, Controller, Param, Query, UseGuards } from '@nestjs/common';
import { ApiKeyGuard, CurrentPrincipal, type Principal } from '@upscaler/api-keys';
import { Endpoint, singleValuedQuery } from '@upscaler/http-api';
import { WEBHOOK_ENDPOINT_ENDPOINTS } from './webhooks.routes';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** Webhook endpoints (docs/design.md §6): webhooks:write / webhooks:read. */
@Controller()
@UseGuards(ApiKeyGuard)
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Endpoint(WEBHOOK_ENDPOINT_ENDPOINTS.createWebhookEndpoint)
  create(@CurrentPrincipal() p: Principal, @Body() body: unknown) {
    return this.endpoints.create(p.accountId, body);
  }

  @Endpoint(WEBHOOK_ENDPOINT_ENDPOINTS.listWebhookEndpoints)
  list(@CurrentPrincipal() p: Principal) {
    return this.endpoints.list(p.accountId);
  }

  @Endpoint(WEBHOOK_ENDPOINT_ENDPOINTS.getWebhookEndpoint)
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.endpoints.get(p.accountId, id);
  }

  @Endpoint(WEBHOOK_ENDPOINT_ENDPOINTS.deleteWebhookEndpoint)
  remove(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.endpoints.remove(p.accountId, id);
  }

  @Endpoint(WEBHOOK_ENDPOINT_ENDPOINTS.listWebhookDeliveries)
  deliveries(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() q: unknown) {
    return this.endpoints.deliveries(p.accountId, id, singleValuedQuery(q, ['limit']));
  }

  @Endpoint(WEBHOOK_ENDPOINT_ENDPOINTS.rotateWebhookEndpointSecret)
  rotateSecret(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: unknown) {
    return this.endpoints.rotateSecret(p.accountId, id, body);
  }

  @Endpoint(WEBHOOK_ENDPOINT_ENDPOINTS.enableWebhookEndpoint)
  enable(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.endpoints.enable(p.accountId, id);
  }

  @Endpoint(WEBHOOK_ENDPOINT_ENDPOINTS.sendWebhookTestEvent)
  sendTestEvent(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.endpoints.sendTestEvent(p.accountId, id);
  }

  @Endpoint(WEBHOOK_ENDPOINT_ENDPOINTS.redeliverWebhook)
  redeliver(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Param('delivery_id') deliveryId: string) {
    return this.endpoints.redeliver(p.accountId, id, deliveryId);
  }
}
