import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiClient } from './api-client';
import { startHttpsServer, type ListenOptions, type TestCa, type TestServer } from './https';

/** One request the receiver got, as it arrived. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The answer to the n-th request (0-based) to a path: a status, or 'hold' (never answered: the sender times out). */
export type ReceiverPlan = (n: number) => number | 'hold';

/**
 * A loopback HTTPS endpoint for webhook deliveries (the end-to-end suites of webhooks, webhook ergonomics and the
 * SDKs): records every request, answers each path as planned (`defaultStatus` when it has no plan), can hold a
 * request open, run a hook before answering, and serve fixed GET answers (an image for `image_url`).
 */
export interface WebhookReceiver extends TestServer {
  readonly received: ReceivedRequest[];
  /** requests held open by a 'hold' plan, and whether the sender has given up on each */
  readonly held: Array<{ path: string; closed: boolean }>;
  hits(path: string): ReceivedRequest[];
  /** The n-th request (1-based) to `path`, once it has arrived. */
  nthHit(path: string, n: number, timeoutMs?: number): Promise<ReceivedRequest>;
  plan(path: string, plan: ReceiverPlan | number): void;
  /** Called when a request to `path` arrives, before it is answered (may await API calls). */
  onArrival(path: string, hook: (n: number) => Promise<void> | void): void;
  /** GET `path` answers 200 with these bytes (not recorded). */
  serve(path: string, contentType: string, body: Buffer): void;
}

export async function startWebhookReceiver(
  certs: Pick<TestCa, 'cert' | 'key'>,
  defaultStatus = 200,
  listen: ListenOptions = {},
): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const held: Array<{ path: string; closed: boolean }> = [];
  const plans = new Map<string, ReceiverPlan>();
  const hooks = new Map<string, (n: number) => Promise<void> | void>();
  const files = new Map<string, { contentType: string; body: Buffer }>();
  const hits = (path: string) => received.filter((r) => r.path === path);

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const file = req.method === 'GET' ? files.get(path) : undefined;
      if (file) {
        res.writeHead(200, { 'content-type': file.contentType }).end(file.body);
        return;
      }
      const n = hits(path).length;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      received.push({ method: req.method ?? 'GET', path, headers, body: Buffer.concat(chunks).toString('utf8') });
      void Promise.resolve(hooks.get(path)?.(n)).then(() => {
        const status = plans.get(path)?.(n) ?? defaultStatus;
        if (status === 'hold') {
          const entry = { path, closed: false };
          held.push(entry);
          res.on('close', () => (entry.closed = true));
          return;
        }
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 204 ? undefined : String(status));
      });
    });
  };

  const server = await startHttpsServer(onRequest, certs, listen);
  return Object.assign(server, {
    received,
    held,
    hits,
    nthHit: (path: string, n: number, timeoutMs?: number) => waitFor(`request ${n} to ${path}`, () => hits(path)[n - 1], timeoutMs),
    plan: (path: string, plan: ReceiverPlan | number) => void plans.set(path, typeof plan === 'number' ? () => plan : plan),
    onArrival: (path: string, hook: (n: number) => Promise<void> | void) => void hooks.set(path, hook),
    serve: (path: string, contentType: string, body: Buffer) => void files.set(path, { contentType, body }),
  });
}

/** A fresh path on `receiver` and a webhook endpoint registered for it through `client` (201, or it throws). */
export async function registerEndpoint(
  client: ApiClient,
  receiver: WebhookReceiver,
  body: Record<string, unknown> = {},
): Promise<{ path: string; endpoint: { id: string; secret: string; [k: string]: unknown } }> {
  const path = `/hook/${randomUUID()}`;
  const r = await client.post('/webhook_endpoints', { url: `${receiver.url}${path}`, ...body });
  if (r.status !== 201) throw new Error(`register: ${r.status} ${r.text}`);
  return { path, endpoint: r.body };
}

/** Probes every 100 ms until it gives a value (not undefined or false); fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
