import { Client, type ClientConfig } from 'pg';

/**
 * A Postgres session-level advisory lock held on a dedicated connection: while this connection
 * lives, no other session gets the lock; when the process dies, Postgres drops the session and the
 * lock with it, so a standby takes over without any lease bookkeeping.
 */
export class AdvisoryLock {
  private client: Client | null = null;
  private broken = false;
  private locked = false;

  constructor(
    private readonly connection: string | ClientConfig,
    /** Lock name; hashed to the two 32-bit keys of pg_try_advisory_lock(int, int). */
    readonly name: string,
  ) {}

  get held(): boolean {
    return this.locked && this.client !== null && !this.broken;
  }

  /**
   * Tries once; true when this session now holds the lock. A standby keeps its connection and
   * asks again on it, so waiting costs one query per try, not one connection.
   */
  async tryAcquire(): Promise<boolean> {
    if (this.held) return true;
    if (this.locked || this.broken) await this.dropConnection(); // the session (and lock) is gone
    try {
      const client = await this.connect();
      const [k1, k2] = lockKeys(this.name);
      const res = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS locked', [k1, k2]);
      this.locked = res.rows[0]?.locked === true && !this.broken;
      return this.locked;
    } catch {
      await this.dropConnection();
      return false;
    }
  }

  /** Proves the session (and so the lock) is still alive; false when it was lost. */
  async verify(): Promise<boolean> {
    if (!this.held || !this.client) return false;
    try {
      await this.client.query('SELECT 1');
      return this.held;
    } catch {
      this.broken = true;
      return false;
    }
  }

  async release(): Promise<void> {
    await this.dropConnection();
  }

  private async connect(): Promise<Client> {
    if (this.client) return this.client;
    const client = new Client(typeof this.connection === 'string' ? { connectionString: this.connection } : this.connection);
    // A broken connection means the lock is gone too: stop acting as the holder at once.
    const lost = () => {
      if (this.client === client) this.broken = true;
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    this.broken = false;
    this.client = client;
    return client;
  }

  private async dropConnection(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.locked = false;
    // Ending the session releases a session-level advisory lock.
    if (client) await client.end().catch(() => undefined);
    this.broken = false;
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
