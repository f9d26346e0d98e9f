import { setTimeout as sleep } from 'node:timers/promises';
import { freeLoopbackPort } from '@upscaler/postgres';

export { freeLoopbackPort, isLoopbackPortFree } from '@upscaler/postgres';

/**
 * Ports for the servers tests start as child processes (Kafka, MinIO, Postgres, our services).
 * `freeLoopbackPort` draws below the ephemeral range, so no outgoing connection takes a port between
 * the draw and the child's bind; another test process may still draw the same one, so starts that
 * fail on a taken port draw fresh ports and try again.
 */

/** `count` distinct free ports. */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) ports.push(await freeLoopbackPort(ports));
  return ports;
}

/** True when a failed start's output says a port was taken (Kafka, MinIO, Postgres and Node wordings). */
export function isAddressInUse(output: string): boolean {
  return /address already in use|port is already in use|EADDRINUSE|could not bind/i.test(output);
}

/**
 * Runs `start` and runs it again (up to `attempts` in all, `waitMs` apart) while it fails because a port was taken;
 * any other failure, or the last one, is thrown.
 */
export async function retryOnAddressInUse<T>(start: () => Promise<T>, attempts: number, waitMs = 0): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= attempts || !isAddressInUse(err instanceof Error ? err.message : String(err))) throw err;
      if (waitMs > 0) await sleep(waitMs);
    }
  }
}

/** Runs `start` on `count` fresh ports; draws new ones and tries again (up to `attempts`) when a port was taken. */
export function withFreshPortsOnConflict<T>(count: number, start: (ports: number[]) => Promise<T>, attempts = 3): Promise<T> {
  return retryOnAddressInUse(async () => start(await freeLoopbackPorts(count)), attempts);
}
