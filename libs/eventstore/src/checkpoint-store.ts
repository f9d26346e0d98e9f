import type { EntityManager } from 'typeorm';

/**
 * Where a durable consumer remembers how far it has read the log (docs/design.md §2: "consumers record
 * their checkpoints"). Positions are global log positions; 0 = from the beginning.
 */
export interface CheckpointStore {
  /** 0 when the consumer has never saved one. */
  load(consumer: string): Promise<number>;
  /**
   * Pass the `manager` of an open transaction to store the checkpoint atomically with a projection's
   * own writes.
   */
  save(consumer: string, position: number, manager?: EntityManager): Promise<void>;
  /** Forget the checkpoint: the consumer re-reads from position 0 (projection rebuild). */
  reset(consumer: string): Promise<void>;
}
