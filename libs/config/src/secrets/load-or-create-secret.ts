import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * Reads a secret kept in a file, creating it on first use (the standalone's generated secrets under
 * `<data dir>`: storage signing key, Postgres password, operator token). Creation is atomic and
 * race-free: the secret is written to a private temp file and hard-linked into place, so two
 * processes starting at once agree on one value and nobody ever reads a half-written file.
 */
export async function loadOrCreateSecret(file: string, opts: { bytes?: number; prefix?: string } = {}): Promise<string> {
  const existing = await readSecret(file);
  if (existing !== null) return existing;
  const secret = `${opts.prefix ?? ''}${randomBytes(opts.bytes ?? 32).toString('hex')}`;
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(tmp, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await fs.link(tmp, file);
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another process won the race: use its secret.
    const theirs = await readSecret(file);
    if (theirs === null) throw new Error(`secret file ${file} exists but is empty`);
    return theirs;
  } finally {
    await fs.unlink(tmp).catch(() => undefined);
  }
}

async function readSecret(file: string): Promise<string | null> {
  try {
    const text = (await fs.readFile(file, 'utf8')).trim();
    if (text === '') throw new Error(`secret file ${file} is empty; delete it to generate a new secret`);
    return text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
