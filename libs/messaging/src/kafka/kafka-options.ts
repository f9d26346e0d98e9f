import { Kafka, logLevel, type LogEntry } from 'kafkajs';

export type TransportLog = (level: 'info' | 'warn' | 'error', message: string, extra?: Record<string, unknown>) => void;

export interface KafkaConnectionOptions {
  /** KAFKA_BROKERS, split: `['kafka-0:9092', …]`. */
  brokers: string[];
  clientId?: string;
  /** Partitions of the topics created at start-up (KAFKA_PARTITIONS, default 6). */
  partitions?: number;
  log?: TransportLog;
  /** kafkajs' own log is noisy while a broker is away; by default only its errors are passed on. */
  kafkajsLogLevel?: logLevel;
}

export const DEFAULT_PARTITIONS = 6;

/** Categories whose topics are created at start-up (contracts `StreamCategory`); others on first use. */
export const KNOWN_CATEGORIES = ['job', 'account', 'apikey', 'webhook', 'delivery', 'idempotency', 'reservation'];

export const defaultLog: TransportLog = (level, message, extra) => {
  if (level === 'info') return;
  console[level](`[kafka] ${message}`, extra ?? '');
};

export function createKafka(opts: KafkaConnectionOptions): Kafka {
  const log = opts.log ?? defaultLog;
  return new Kafka({
    clientId: opts.clientId ?? 'upscaler',
    brokers: opts.brokers,
    // Keep retrying while a broker restarts; callers see an error only after ~1 minute.
    retry: { initialRetryTime: 300, maxRetryTime: 5_000, retries: 12 },
    logLevel: opts.kafkajsLogLevel ?? logLevel.ERROR,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...extra } = entry.log;
      log(
        entry.level <= logLevel.ERROR ? 'error' : entry.level === logLevel.WARN ? 'warn' : 'info',
        `${entry.namespace}: ${message}`,
        extra,
      );
    },
  });
}
