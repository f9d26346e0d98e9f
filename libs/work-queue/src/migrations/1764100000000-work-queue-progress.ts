import { sqlMigration } from '@upscaler/postgres';

/**
 * A running job's progress: the share of its tiles through the network, written by the
 * processor that holds the lease (a few times a second at most) and announced on `upscale_progress`. Not an
 * event: it is a hint for a progress bar, worth nothing once the job is final (the row goes with it).
 */
export const WorkQueueProgress1764100000000 = sqlMigration('WorkQueueProgress1764100000000', {
  up: [`ALTER TABLE work_queue ADD COLUMN progress real NOT NULL DEFAULT 0 CHECK (progress >= 0 AND progress <= 1)`],
  down: [`ALTER TABLE work_queue DROP COLUMN progress`],
});
