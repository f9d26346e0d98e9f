export * from './errors';
export * from './job';
export * from './ids';
export * from './events/event';
export * from './events/job-events';
export * from './events/idempotency-events';
export * from './views';
