import type { Capability } from '@upscaler/runtime';
import { deliveryProjection, webhookEndpointProjection } from './projections/webhook.projections';
import { webhookMetrics } from './webhooks.metrics';
import { webhooksConfig } from './webhooks.config';

/** The endpoint and delivery streams' read models (their rows in `read_models`). */
export const webhooksCapability: Capability = {
  name: 'webhooks',
  projections: [webhookEndpointProjection, deliveryProjection],
  metrics: webhookMetrics,
  config: [webhooksConfig],
};
