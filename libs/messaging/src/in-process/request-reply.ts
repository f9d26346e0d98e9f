import { RemoteHandlerError } from '../kafka/request-message.schema';
import { RequestTimeoutError } from '../transport.port';

type Handler = (payload: unknown) => Promise<unknown>;

interface Waiting {
  dispatch(handler: Handler): void;
  fail(err: Error): void;
}

/**
 * Request/reply inside one process, with the Kafka transport's semantics so code behaves the same in
 * both modes: payloads and results cross a JSON "wire" (no shared objects, Dates become strings), a
 * handler's error arrives as `RemoteHandlerError` (name, message, code), and when nobody answers
 * within the timeout the request rejects with `RequestTimeoutError` (docs/design.md §2: 503 when billing does
 * not answer). A request made while no handler is registered waits for one until its timeout.
 */
export class InProcessRequestReply {
  private readonly handlers = new Map<string, Handler>();
  private readonly waiting = new Map<string, Set<Waiting>>();

  request<TReq, TRes>(topic: string, payload: TReq, timeoutMs: number): Promise<TRes> {
    const wire = JSON.stringify(payload ?? null);
    return new Promise<TRes>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.waiting.get(topic)?.delete(waiter);
        fn();
      };
      const timer = setTimeout(() => settle(() => reject(new RequestTimeoutError(topic, timeoutMs))), timeoutMs);
      const waiter: Waiting = {
        dispatch: (handler) => {
          this.waiting.get(topic)?.delete(waiter);
          Promise.resolve()
            .then(() => handler(JSON.parse(wire)))
            .then(
              (result) => settle(() => resolve(JSON.parse(JSON.stringify(result ?? null)) as TRes)),
              (err: Error & { code?: unknown }) =>
                settle(() =>
                  reject(
                    new RemoteHandlerError(
                      topic,
                      err?.name ?? 'Error',
                      err?.message ?? String(err),
                      typeof err?.code === 'string' ? err.code : undefined,
                    ),
                  ),
                ),
            );
        },
        fail: (err) => settle(() => reject(err)),
      };
      const handler = this.handlers.get(topic);
      if (handler) {
        waiter.dispatch(handler);
      } else {
        if (!this.waiting.has(topic)) this.waiting.set(topic, new Set());
        this.waiting.get(topic)!.add(waiter);
      }
    });
  }

  reply(topic: string, handler: Handler): void {
    if (this.handlers.has(topic)) throw new Error(`a handler already answers ${topic}; removeReply() it first`);
    this.handlers.set(topic, handler);
    for (const waiter of [...(this.waiting.get(topic) ?? [])]) waiter.dispatch(handler);
  }

  /** Stops answering `topic` (requests in flight still get their answer). */
  removeReply(topic: string): void {
    this.handlers.delete(topic);
  }

  close(): void {
    this.handlers.clear();
    for (const set of this.waiting.values()) for (const waiter of [...set]) waiter.fail(new Error('transport closed'));
    this.waiting.clear();
  }
}
