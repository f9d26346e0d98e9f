import pino, { type Logger } from 'pino';

/** JSON logs (pino). Every line carries the active trace id; child loggers add request and job ids. */
export type { Logger };
export function createLogger(level: string, service: string, traceId: () => string = () => ''): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const id = traceId();
      return id ? { traceId: id } : {};
    },
  });
}
