import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * A route answered on Node's HTTP server before Express sees the request: the one every client polls
 * (GET /jobs/{id}), where Express's own per-request cost would be most of the answer's (docs/benchmarks.md
 * "API hot path"). It answers what it can answer from memory exactly as the Nest route would, and declines the
 * rest, which Express then answers as usual. Request ids, HTTP metrics and the request log are the same as on
 * Express (installed by configureHttpApp).
 */
export interface FastPath<T = unknown> {
  /** The route template its answers are counted under in the HTTP metrics, as Express would name it. */
  readonly route: string;
  /**
   * Whether it answers this request: decided synchronously and without side effects (nothing counted, nothing
   * written), since a declined request goes on to Express. Returns what `answer` needs, or undefined.
   */
  accept(req: IncomingMessage): T | undefined;
  /** Answers an accepted request; must not reject (an error is answered, as the error filter would). */
  answer(req: IncomingMessage, res: ServerResponse, accepted: T): Promise<void>;
}

/** The per-request steps every answer gets: request id, metrics under `route`, the request log. */
export type HttpPlumbing = (req: IncomingMessage, res: ServerResponse, route: string) => void;

/** Puts `paths` in front of the server's request listeners (Express), each request going to the first that accepts it. */
export function installFastPaths(server: Server, paths: FastPath[], plumbing: HttpPlumbing): void {
  if (paths.length === 0) return;
  const rest = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    for (const path of paths) {
      const accepted = path.accept(req);
      if (accepted === undefined) continue;
      plumbing(req, res, path.route);
      void path.answer(req, res, accepted);
      return;
    }
    for (const listener of rest) listener.call(server, req, res);
  });
}
