import type { RunningSubscription } from '../transport.port';

/**
 * Resolves once `subscription` has handled everything up to `position` (read-your-writes: append,
 * then wait for the projection before answering; also tests). Rejects after `timeoutMs`.
 */
export function waitForCatchUp(subscription: RunningSubscription, position: number, timeoutMs: number): Promise<void> {
  if (subscription.caughtUpTo() >= position) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const reached = subscription.caughtUpTo();
      if (reached >= position) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() - started >= timeoutMs) {
        clearInterval(timer);
        reject(new Error(`subscription reached position ${reached}, not ${position}, within ${timeoutMs} ms`));
      }
    }, 5);
  });
}
