import { foldedBy, type ProjectionDef } from '@upscaler/projections';
import { deliveryDecider } from '../model/delivery.decider';
import type { DeliveryState } from '../model/delivery.state';
import { webhookEndpointDecider } from '../model/webhook-endpoint.decider';
import type { WebhookEndpointState } from '../model/webhook-endpoint.state';

/** A `webhook-…` (endpoint) stream's read model, listed by account. */
export const webhookEndpointProjection: ProjectionDef<WebhookEndpointState> = {
  category: 'webhook',
  ...foldedBy(webhookEndpointDecider),
  columns: (s) => ({
    entityId: s.endpoint!.endpointId,
    accountId: s.endpoint!.accountId,
    status: s.status,
    createdAt: s.endpoint!.createdAt,
  }),
};

/** A `delivery-…` stream's read model: listed by endpoint (`parentId`), due by `nextAt` for the delivery worker. */
export const deliveryProjection: ProjectionDef<DeliveryState> = {
  category: 'delivery',
  ...foldedBy(deliveryDecider),
  columns: (s) => ({
    entityId: s.delivery!.deliveryId,
    accountId: s.delivery!.accountId,
    parentId: s.delivery!.endpointId,
    status: s.status,
    nextAt: s.nextAttemptAt,
    createdAt: s.delivery!.scheduledAt,
  }),
};
