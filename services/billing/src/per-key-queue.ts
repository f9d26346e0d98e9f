/**
 * Runs tasks one after another per key, tasks of different keys side by side. Billing queues its
 * reservations per account: they all append to the account's one ledger stream, so running them at
 * once only makes them conflict and re-decide (optimistic concurrency, DESIGN 2), and a burst of
 * submits on one account ran out of retries (POST /upscale answered 500).
 */
export class PerKeyQueue {
  /** The last task queued per key, settled either way; gone once the key's queue is empty. */
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task queued or running. */
  get busyKeys(): number {
    return this.tails.size;
  }
}
