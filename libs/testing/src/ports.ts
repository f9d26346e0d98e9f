import { freeLoopbackPort } from '@upscaler/platform';

export { freeLoopbackPort, isLoopbackPortFree } from '@upscaler/platform';

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

/** Runs `start` on `count` fresh ports; draws new ones and tries again (up to `attempts`) when a port was taken. */
export async function withFreshPortsOnConflict<T>(count: number, start: (ports: number[]) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const ports = await freeLoopbackPorts(count);
    try {
      return await start(ports);
    } catch (err) {
      if (attempt >= attempts || !isAddressInUse(err instanceof Error ? err.message : String(err))) throw err;
    }
  }
}
