import { ConfigError, configSection, defineConfigSection, int, loadConfig } from './config';

describe('configuration is read and validated once at start-up', () => {
  it('applies the documented defaults (docs/design.md §6)', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      allowPrivateNetworks: false,
      rateLimitPerMinute: 60,
      trustProxy: ['loopback', 'linklocal', 'uniquelocal'],
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
      UPSCALE_RATE_LIMIT_PER_MINUTE: '120',
      DATABASE_URL: 'postgres://u:p@db:5432/x',
      KAFKA_BROKERS: 'k1:9092, k2:9092',
      KAFKA_PARTITIONS: '12',
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY: 'a',
      S3_SECRET_KEY: 's',
      S3_BUCKET: 'b',
    });
    expect(c.port).toBe(9000);
    expect(c.allowPrivateNetworks).toBe(true);
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

  it.each([
    ['false', false],
    ['none', false],
    ['2', 2],
    ['loopback, 10.0.0.0/8, 203.0.113.7, 2001:db8::/32', ['loopback', '10.0.0.0/8', '203.0.113.7', '2001:db8::/32']],
  ] as const)('UPSCALE_TRUST_PROXY=%s names the trusted proxies (%j)', (value, expected) => {
    expect(loadConfig({ UPSCALE_TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('refuses UPSCALE_TRUST_PROXY=true (any client could pick its own address) and unparsable entries', () => {
    expect(() => loadConfig({ UPSCALE_TRUST_PROXY: 'true' })).toThrow(/UPSCALE_TRUST_PROXY: true would let any client choose/);
    expect(() => loadConfig({ UPSCALE_TRUST_PROXY: 'loopback, 10.0.0.0/33, proxy.local' })).toThrow(
      /UPSCALE_TRUST_PROXY: must be false, a hop count, .* \(not 10\.0\.0\.0\/33, proxy\.local\)/,
    );
  });

  it("reads the capabilities' sections with the rest, every problem of all of them in one error", () => {
    const limits = defineConfigSection('limits', { UPSCALE_THINGS: int(3, 1, 9) }, (e, problems) => {
      if (e.UPSCALE_THINGS === 7) problems.push('UPSCALE_THINGS: not 7');
      return { things: e.UPSCALE_THINGS };
    });
    expect(configSection(loadConfig({}, [limits]), limits)).toEqual({ things: 3 });
    expect(configSection(loadConfig({ UPSCALE_THINGS: '5' }, [limits]), limits)).toEqual({ things: 5 });
    expect(() => loadConfig({ PORT: 'x', UPSCALE_THINGS: '0' }, [limits])).toThrow(
      /PORT: must be an integer[\s\S]*UPSCALE_THINGS: must be an integer from 1 to 9/,
    );
    expect(() => loadConfig({ UPSCALE_THINGS: '7' }, [limits])).toThrow(/UPSCALE_THINGS: not 7/);
    expect(() => configSection(loadConfig({}), limits)).toThrow(/the limits settings were not read/);
  });
});
