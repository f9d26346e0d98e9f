import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadOrCreateSecret } from './load-or-create-secret';

describe('loadOrCreateSecret', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(tmpdir(), 'upscaler-secret-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('creates a 32-byte hex secret readable only by its owner, and returns the same one afterwards', async () => {
    const file = path.join(dir, 'nested', 'storage-secret');
    const secret = await loadOrCreateSecret(file);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateSecret(file)).toBe(secret);
    expect(await fs.readdir(path.dirname(file))).toEqual(['storage-secret']);
  });

  it('keeps a secret written by hand (trimmed) and honours a prefix for new ones', async () => {
    await fs.writeFile(path.join(dir, 'given'), '  my-operator-token\n');
    expect(await loadOrCreateSecret(path.join(dir, 'given'))).toBe('my-operator-token');
    expect(await loadOrCreateSecret(path.join(dir, 'token'), { prefix: 'op_', bytes: 4 })).toMatch(/^op_[0-9a-f]{8}$/);
  });

  it('processes racing to create it all get one secret', async () => {
    const file = path.join(dir, 'raced');
    const secrets = await Promise.all(Array.from({ length: 20 }, () => loadOrCreateSecret(file)));
    expect(new Set(secrets).size).toBe(1);
    expect((await fs.readFile(file, 'utf8')).trim()).toBe(secrets[0]);
    expect(await fs.readdir(dir)).toEqual(['raced']);
  });

  it('refuses an empty secret file instead of silently using an empty key', async () => {
    await fs.writeFile(path.join(dir, 'empty'), '\n');
    await expect(loadOrCreateSecret(path.join(dir, 'empty'))).rejects.toThrow(/is empty; delete it/);
  });
});
