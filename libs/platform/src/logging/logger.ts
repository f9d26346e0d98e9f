import pino, { type Logger } from 'pino';

/** JSON logs (pino). Child loggers carry request id, job id and trace id. */
export type { Logger };
export function createLogger(level: string, service: string): Logger {
  return pino({ level, base: { service }, timestamp: pino.stdTimeFunctions.isoTime });
}
