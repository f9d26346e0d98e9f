/**
 * A client connected on first use and shared by every later caller; a failed connect is forgotten, so the next use
 * tries again (a broker that was down at start-up does not poison the transport).
 */
export class LazyConnection<T extends { connect(): Promise<void>; disconnect(): Promise<void> }> {
  private pending: Promise<T> | null = null;

  constructor(private readonly create: () => T) {}

  get(): Promise<T> {
    this.pending ??= (async () => {
      const client = this.create();
      await client.connect();
      return client;
    })().catch((err: unknown) => {
      this.pending = null;
      throw err;
    });
    return this.pending;
  }

  /** Disconnects the client if one was connected; never throws. */
  async close(): Promise<void> {
    const client = await this.pending?.catch(() => null);
    this.pending = null;
    await client?.disconnect().catch(() => undefined);
  }
}
