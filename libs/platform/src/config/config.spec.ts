import { ConfigError, loadConfig } from './config';

describe('configuration is read and validated once at start-up', () => {
  it('applies the documented defaults (DESIGN 6)', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      allowPrivateNetworks: false,
      rateLimitPerMinute: 60,
      maxOutputPixels: undefined,
      maxInputPixels: 50_000_000,
      billingTimeoutMs: 5000,
      databaseUrl: undefined,
      kafka: undefined,
      s3: undefined,
      logLevel: 'info',
    });
    expect(c.dataDir.endsWith('/data')).toBe(true);
  });

  it('reads every distributed setting', () => {
    const c = loadConfig({
      PORT: '9000',
      UPSCALE_ALLOW_PRIVATE_NETWORKS: 'true',
      UPSCALE_MAX_OUTPUT_PIXELS: '1000000',
      UPSCALE_RATE_LIMIT_PER_MINUTE: '120',
      DATABASE_URL: 'postgres://u:p@db:5432/x',
      KAFKA_BROKERS: 'k1:9092, k2:9092',
      KAFKA_PARTITIONS: '12',
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY: 'a',
      S3_SECRET_KEY: 's',
      S3_BUCKET: 'b',
      UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS: '100, 200,400',
    });
    expect(c.port).toBe(9000);
    expect(c.allowPrivateNetworks).toBe(true);
    expect(c.maxOutputPixels).toBe(1_000_000);
    expect(c.rateLimitPerMinute).toBe(120);
    expect(c.kafka).toEqual({ brokers: ['k1:9092', 'k2:9092'], partitions: 12 });
    expect(c.s3).toEqual({
      endpoint: 'http://minio:9000',
      publicEndpoint: 'http://minio:9000',
      accessKey: 'a',
      secretKey: 's',
      bucket: 'b',
      region: 'us-east-1',
    });
    expect(c.webhookRetryScheduleMs).toEqual([100, 200, 400]);
  });

  it('stops with a message naming each bad variable', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', UPSCALE_RATE_LIMIT_PER_MINUTE: '0', UPSCALE_ALLOW_PRIVATE_NETWORKS: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/^PORT: /m);
    expect(problems).toMatch(/^UPSCALE_RATE_LIMIT_PER_MINUTE: /m);
    expect(problems).toMatch(/^UPSCALE_ALLOW_PRIVATE_NETWORKS: /m);
  });

  it('requires S3 credentials with an S3 endpoint', () => {
    expect(() => loadConfig({ S3_ENDPOINT: 'http://minio:9000' })).toThrow(/S3_ACCESS_KEY: required[\s\S]*S3_SECRET_KEY: required/);
  });
});
