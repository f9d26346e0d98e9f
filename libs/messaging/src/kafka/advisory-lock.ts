import { Client, type ClientConfig } from 'pg';

/**
 * A Postgres session-level advisory lock held on a dedicated connection: while this connection
 * lives, no other session gets the lock; when the process dies, Postgres drops the session and the
 * lock with it, so a standby takes over without any lease bookkeeping.
 */
export class AdvisoryLock {
  private client: Client | null = null;
  private lost = false;

  constructor(
    private readonly connection: string | ClientConfig,
    /** Lock name; hashed to the two 32-bit keys of pg_try_advisory_lock(int, int). */
    readonly name: string,
  ) {}

  get held(): boolean {
    return this.client !== null && !this.lost;
  }

  /** Tries once; true when this session now holds the lock. */
  async tryAcquire(): Promise<boolean> {
    if (this.held) return true;
    await this.dropConnection();
    const client = new Client(typeof this.connection === 'string' ? { connectionString: this.connection } : this.connection);
    // A broken connection means the lock is gone too: stop acting as the holder at once.
    client.on('error', () => {
      this.lost = true;
    });
    client.on('end', () => {
      this.lost = true;
    });
    await client.connect();
    this.lost = false;
    try {
      const [k1, k2] = lockKeys(this.name);
      const res = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS locked', [k1, k2]);
      if (res.rows[0]?.locked) {
        this.client = client;
        return true;
      }
    } catch {
      // fall through: not acquired
    }
    await client.end().catch(() => undefined);
    return false;
  }

  /** Proves the session (and so the lock) is still alive; false when it was lost. */
  async verify(): Promise<boolean> {
    if (!this.held || !this.client) return false;
    try {
      await this.client.query('SELECT 1');
      return !this.lost;
    } catch {
      this.lost = true;
      return false;
    }
  }

  async release(): Promise<void> {
    await this.dropConnection();
  }

  private async dropConnection(): Promise<void> {
    const client = this.client;
    this.client = null;
    // Ending the session releases a session-level advisory lock.
    if (client) await client.end().catch(() => undefined);
  }
}

/** FNV-1a of the name, split into the (classid, objid) pair; 'upsc' as classid keeps our locks apart. */
export function lockKeys(name: string): [number, number] {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return [0x75707363, hash | 0];
}
