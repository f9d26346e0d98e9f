export * from './event-store.port';
export * from './decider';
export * from './checkpoint-store';
export * from './handle-command';
export {
  PostgresEventStore,
  EVENT_LOG_LOCK_KEY,
  EVENTS_CHANNEL,
  pgConfigOf,
  sqlRows,
  txOf,
  type PostgresEventStoreOptions,
} from './postgres/postgres-event-store';
export { streamGuards, StreamMovedError } from './postgres/stream-guards';
export { PgNotificationListener, type NotificationHandlers } from './postgres/pg-notification-listener';
export { PostgresCheckpointStore, resetCheckpoint } from './postgres/postgres-checkpoint-store';
export * from './postgres/migrations';
