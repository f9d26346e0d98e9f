import { streams } from '@upscaler/contracts';
import { commandHandlerFor } from '@upscaler/runtime';
import { deliveryDecider } from './model/delivery.decider';
import { webhookEndpointDecider } from './model/webhook-endpoint.decider';

/** Runs endpoint commands on `webhook-…` streams (libs/runtime/src/command-handler.ts). */
export class WebhookEndpointCommandHandler extends commandHandlerFor(webhookEndpointDecider, streams.webhookEndpoint) {}

/** Runs delivery commands on `delivery-…` streams. */
export class DeliveryCommandHandler extends commandHandlerFor(deliveryDecider, streams.delivery) {}
