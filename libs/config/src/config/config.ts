import { resolve } from 'node:path';
import { z } from 'zod';
import { parseTrustProxy, type TrustProxy } from './trust-proxy';

/**
 * All configuration, read and validated once at start-up (contributing/STYLE.md). A bad value stops the process
 * with a message naming the variable. docs/design.md §6 fixes the first block; the rest are our additions,
 * documented in README.md ("Configuration").
 */
export const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? def : v === 'true' || v === '1' || v === 'yes'));
export const int = (def: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return def;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `must be an integer from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** Seconds per unit of a duration setting ("30d", "12h", "90m", "45s"). */
const DURATION_UNITS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
/** A duration such as 30d, 12h, 90m or 45s, in seconds; unset, empty, 0 or "forever" is undefined (no limit). */
export const optionalDuration = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const t = v?.trim().toLowerCase();
    if (t === undefined || t === '' || t === '0' || t === 'forever') return undefined;
    const m = /^(\d+)\s*([smhd])$/.exec(t);
    const seconds = m ? Number(m[1]) * DURATION_UNITS[m[2] as keyof typeof DURATION_UNITS] : NaN;
    if (!Number.isSafeInteger(seconds) || seconds < 1) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a duration such as 30d, 12h, 90m or 45s (or forever)' });
      return z.NEVER;
    }
    return seconds;
  });

const envSchema = z.object({
  PORT: int(8080, 0, 65535),
  UPSCALE_HOST: optionalString,
  UPSCALE_DATA_DIR: optionalString,
  UPSCALE_OPERATOR_TOKEN: optionalString,
  UPSCALE_ALLOW_PRIVATE_NETWORKS: bool(false),
  UPSCALE_RATE_LIMIT_PER_MINUTE: int(60, 1, 1_000_000),
  UPSCALE_TRUST_PROXY: optionalString,
  UPSCALE_PUBLIC_BASE_URL: optionalString,
  UPSCALE_SHUTDOWN_GRACE_MS: int(25_000, 0),
  DATABASE_URL: optionalString,
  KAFKA_BROKERS: optionalString,
  KAFKA_PARTITIONS: int(6, 1, 1000),
  S3_ENDPOINT: optionalString,
  S3_PUBLIC_ENDPOINT: optionalString,
  S3_ACCESS_KEY: optionalString,
  S3_SECRET_KEY: optionalString,
  S3_BUCKET: z
    .string()
    .optional()
    .transform((v) => v || 'upscaler'),
  S3_REGION: z
    .string()
    .optional()
    .transform((v) => v || 'us-east-1'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .optional()
    .transform((v) => v ?? 'info'),
});

export interface AppConfig {
  port: number;
  host: string;
  dataDir: string;
  operatorToken: string | undefined;
  allowPrivateNetworks: boolean;
  rateLimitPerMinute: number;
  /** Express `trust proxy`: who may name the client's address in X-Forwarded-For (trust-proxy.ts). */
  trustProxy: TrustProxy;
  /** Where users reach the api; used for local signed URLs. Defaults to http://127.0.0.1:<port>. */
  publicBaseUrl: string | undefined;
  shutdownGraceMs: number;
  logLevel: string;
  /** Distributed mode is on when DATABASE_URL/KAFKA_BROKERS/S3_ENDPOINT are set (each adapter on its own). */
  databaseUrl: string | undefined;
  kafka: { brokers: string[]; partitions: number } | undefined;
  s3: { endpoint: string; publicEndpoint: string; accessKey: string; secretKey: string; bucket: string; region: string } | undefined;
  /** The capabilities' own settings, read with the rest (configSection). */
  sections: ReadonlyMap<ConfigSection<unknown>, unknown>;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads and checks the process's settings and the `sections` of its capabilities (every problem of all of them in one
 * ConfigError).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, sections: readonly ConfigSection<unknown>[] = []): AppConfig {
  const parsed = envSchema.safeParse(env);
  const read = sections.map((s) => [s, s.read(env)] as const);
  const sectionProblems = read.flatMap(([, r]) => r.problems);
  if (!parsed.success) {
    throw new ConfigError([...parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`), ...sectionProblems]);
  }
  const e = parsed.data;
  const problems: string[] = [...sectionProblems];
  const trustProxy = parseTrustProxy(e.UPSCALE_TRUST_PROXY);
  if ('error' in trustProxy) problems.push(`UPSCALE_TRUST_PROXY: ${trustProxy.error}`);
  let s3: AppConfig['s3'];
  if (e.S3_ENDPOINT) {
    if (!e.S3_ACCESS_KEY) problems.push('S3_ACCESS_KEY: required when S3_ENDPOINT is set');
    if (!e.S3_SECRET_KEY) problems.push('S3_SECRET_KEY: required when S3_ENDPOINT is set');
    s3 = {
      endpoint: e.S3_ENDPOINT,
      publicEndpoint: e.S3_PUBLIC_ENDPOINT ?? e.S3_ENDPOINT,
      accessKey: e.S3_ACCESS_KEY ?? '',
      secretKey: e.S3_SECRET_KEY ?? '',
      bucket: e.S3_BUCKET,
      region: e.S3_REGION,
    };
  }
  for (const [name, value] of [
    ['UPSCALE_PUBLIC_BASE_URL', e.UPSCALE_PUBLIC_BASE_URL],
    ['S3_ENDPOINT', e.S3_ENDPOINT],
    ['S3_PUBLIC_ENDPOINT', e.S3_PUBLIC_ENDPOINT],
  ] as const) {
    if (value && !/^https?:\/\/[^/]+/.test(value)) problems.push(`${name}: must be an http(s) URL`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: e.PORT,
    host: e.UPSCALE_HOST ?? '0.0.0.0',
    dataDir: resolve(e.UPSCALE_DATA_DIR ?? './data'),
    operatorToken: e.UPSCALE_OPERATOR_TOKEN,
    allowPrivateNetworks: e.UPSCALE_ALLOW_PRIVATE_NETWORKS,
    rateLimitPerMinute: e.UPSCALE_RATE_LIMIT_PER_MINUTE,
    trustProxy: 'ok' in trustProxy ? trustProxy.ok : false,
    publicBaseUrl: e.UPSCALE_PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    shutdownGraceMs: e.UPSCALE_SHUTDOWN_GRACE_MS,
    logLevel: e.LOG_LEVEL,
    databaseUrl: e.DATABASE_URL,
    kafka: e.KAFKA_BROKERS
      ? {
          brokers: e.KAFKA_BROKERS.split(',')
            .map((b) => b.trim())
            .filter(Boolean),
          partitions: e.KAFKA_PARTITIONS,
        }
      : undefined,
    s3,
    sections: new Map(read.map(([s, r]) => [s, r.value])),
  };
}

/**
 * A capability's own settings (modules/<name>/src/<name>.config.ts): its environment variables, read and checked with
 * the process's at start-up (the runtime passes every capability's sections to loadConfig), then handed to its classes.
 */
export interface ConfigSection<T> {
  readonly name: string;
  /** The settings, and what is wrong with them (each problem names its variable). */
  read(env: NodeJS.ProcessEnv): { value: T; problems: string[] };
}

/** A section from the zod schema of its variables and what it makes of them (pushing any further problem). */
export function defineConfigSection<S extends z.ZodRawShape, T>(
  name: string,
  variables: S,
  build: (values: z.output<z.ZodObject<S>>, problems: string[]) => T,
): ConfigSection<T> {
  const schema = z.object(variables);
  return {
    name,
    read(env) {
      const parsed = schema.safeParse(env);
      if (!parsed.success) return { value: undefined as T, problems: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
      const problems: string[] = [];
      return { value: build(parsed.data, problems), problems };
    },
  };
}

/** A capability's settings as loadConfig read them; a section it was not given is a programming error. */
export function configSection<T>(config: AppConfig, section: ConfigSection<T>): T {
  if (!config.sections.has(section)) throw new Error(`config: the ${section.name} settings were not read (pass the section to loadConfig)`);
  return config.sections.get(section) as T;
}
