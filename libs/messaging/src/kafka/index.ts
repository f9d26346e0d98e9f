export * from './kafka-transport';
export * from './event-relay';
export * from './advisory-lock';
export * from './kafka-options';
export * from './event-message.schema';
export * from './request-message.schema';
export * from './kafka-subscription';
export { ensureTopics } from './topics';
