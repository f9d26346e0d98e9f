import type { IncomingMessage } from 'node:http';

/** The body grew past the cap; `received` counts the bytes seen when reading stopped. */
export class BodyTooLargeError extends Error {
  constructor(
    readonly maxBytes: number,
    readonly received: number,
  ) {
    super(`response body exceeds ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads a response body with a running byte count and destroys the connection the moment the
 * count passes `maxBytes`: a missing or false Content-Length (chunked or close-delimited bodies)
 * cannot make us buffer more than the cap plus one chunk.
 * `onOver: 'reject'` fails with BodyTooLargeError; `'truncate'` resolves with what fits.
 */
export function readCapped(res: IncomingMessage, maxBytes: number, onOver: 'reject' | 'truncate'): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      fn();
    };
    res.on('data', (chunk: Buffer) => {
      if (settled) return;
      total += chunk.length;
      if (total > maxBytes) {
        const kept = chunks.reduce((n, c) => n + c.length, 0);
        res.destroy();
        if (onOver === 'reject') settle(() => reject(new BodyTooLargeError(maxBytes, total)));
        else settle(() => resolve(Buffer.concat([...chunks, chunk.subarray(0, maxBytes - kept)])));
        return;
      }
      chunks.push(chunk);
    });
    res.once('end', () => settle(() => resolve(Buffer.concat(chunks, total))));
    res.on('error', (err) => settle(() => reject(err)));
    res.once('close', () => {
      // closed before 'end': the peer cut the body short (or we were aborted)
      settle(() => reject(Object.assign(new Error('connection closed before the body was complete'), { code: 'ECONNRESET' })));
    });
  });
}
