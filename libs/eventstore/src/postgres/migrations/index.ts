import { CreateEventLog1700000000000 } from './1700000000000-create-event-log';
import { CreateCheckpoints1700000000001 } from './1700000000001-create-checkpoints';

export { CreateEventLog1700000000000, CreateCheckpoints1700000000001 };

/** The event store's migrations, in order; pass them (with the other modules') to `createDataSource`. */
export const EVENT_STORE_MIGRATIONS = [CreateEventLog1700000000000, CreateCheckpoints1700000000001];
