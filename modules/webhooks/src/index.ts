/**
 * Webhooks (spec 6, docs/design.md §4 and 6): `webhook-…` endpoint and `delivery-…` streams, their signing
 * (Standard Webhooks), the /webhook_endpoints endpoints, and the workers that schedule and send deliveries.
 */
// model: commands, deciders, the events they own, state, views, retry schedule
export * from './model/webhook.events';
export * from './model/webhook.views';
export * from './model/webhook-endpoint.commands';
export * from './model/webhook-endpoint.state';
export * from './model/webhook-endpoint.decider';
export * from './model/webhook-endpoint.views';
export * from './model/delivery.commands';
export * from './model/delivery.state';
export * from './model/delivery.decider';
export * from './model/delivery.views';
export * from './model/retry-schedule';
export * from './model/webhook-event-type';
export * from './model/manual-delivery';
export * from './signing/webhook-signing';
// projections
export * from './projections/webhook.projections';
// HTTP: schemas and OpenAPI
export * from './http/webhooks.schemas';
export * from './http/webhooks.routes';
// workers
export * from './workers/webhook-sender';
export * from './workers/delivery.scheduler';
export * from './workers/delivery.worker';
export * from './workers/webhook-sender.port';
// what services compose
export * from './webhook-endpoints-http.module';
export * from './workers/webhook-workers.module';
export * from './webhooks.capability';
