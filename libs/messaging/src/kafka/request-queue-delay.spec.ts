// kafkajs 2.2.4 scheduled its idle request-queue check after minus the Unix time, and Node.js 23+ warned
// `TimeoutNegativeWarning` at every service's start. scripts/patches/kafkajs-request-queue.js fixes the installed file
// after `npm ci`; this checks the file Node loads, so a reinstall or a kafkajs upgrade that loses the fix fails here.
// (The cluster tier checks the same in the pods' logs, on the images' Node.js 24.)
import { readFileSync } from 'node:fs';

// kafkajs ships no types for its internals.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue = require('kafkajs/src/network/requestQueue') as new (opts: Record<string, unknown>) => {
  scheduleCheckPendingRequests(): void;
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
};

function delayOfNextCheck(setUp: (q: InstanceType<typeof RequestQueue>) => void): number {
  const queue = new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 1000, clientId: 't', broker: 'b', logger: console });
  setUp(queue);
  const spy = jest.spyOn(global, 'setTimeout');
  try {
    queue.scheduleCheckPendingRequests();
    const delay = spy.mock.calls[0]?.[1];
    return delay as number;
  } finally {
    clearTimeout(queue.throttleCheckTimeoutId ?? undefined);
    spy.mockRestore();
  }
}

describe('kafkajs request queue (patched after install)', () => {
  it('loads the patched file', () => {
    const source = readFileSync(require.resolve('kafkajs/src/network/requestQueue'), 'utf8');
    expect(source).toContain('let scheduleAt = Math.max(1, this.throttledUntil - Date.now())');
  });

  it('schedules the idle check after 1 ms, not after minus the Unix time', () => {
    expect(delayOfNextCheck(() => undefined)).toBe(1);
  });

  it('still waits out a broker throttle', () => {
    const delay = delayOfNextCheck((q) => (q.throttledUntil = Date.now() + 5000));
    expect(delay).toBeGreaterThan(4900);
    expect(delay).toBeLessThanOrEqual(5000);
  });
});
