export * from './channel';
export * from './work-queue.projection';
export * from './work-queue.repository';
export { WorkQueue1764000000100 } from './migrations/1764000000100-work-queue';
export { WorkQueueProgress1764100000000 } from './migrations/1764100000000-work-queue-progress';
export * from './job-progress';
