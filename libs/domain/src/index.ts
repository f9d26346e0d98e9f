/**
 * Pure domain code (docs/design.md §1): deciders, pricing, state machines and the views derived from them.
 * No I/O, no clock, no random: times, ids and jitter come in with the commands.
 */
export * from './decider';

// Webhooks (spec 6, docs/design.md §4 and 6).
export * from './webhook/webhook-endpoint.commands';
export * from './webhook/webhook-endpoint.state';
export * from './webhook/webhook-endpoint.decider';
export * from './webhook/webhook-endpoint.views';
export * from './webhook/delivery.commands';
export * from './webhook/delivery.state';
export * from './webhook/delivery.decider';
export * from './webhook/delivery.views';
export * from './webhook/retry-schedule';
export * from './webhook/webhook-event-type';
export * from './webhook/manual-delivery';

// Shared helpers.
export * from './shared/time';

// Test helpers (node:assert only, safe in any build): given/when/then, fixtures, seeded PRNG.
export * from './testing/decider-spec';
export * from './testing/time-fixtures';
export * from './testing/seeded-random';
