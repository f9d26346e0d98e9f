import { Client, type ClientConfig } from 'pg';

export interface NotificationHandlers {
  onNotification(payload: string): void;
  /** Called after every (re)connect: notifications sent while disconnected are lost, so catch up. */
  onConnected(): void;
  onError?(err: Error): void;
}

/**
 * LISTEN on a dedicated connection (a pooled one could be handed to someone else, and with it the
 * subscription). Reconnects after errors or server restarts with a fixed delay until stopped.
 */
export class PgNotificationListener {
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly config: ClientConfig,
    private readonly channel: string,
    private readonly handlers: NotificationHandlers,
    private readonly retryDelayMs = 1_000,
  ) {}

  start(): void {
    this.stopped = false;
    if (!this.client && !this.connecting && !this.retryTimer) this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private connect(): void {
    this.retryTimer = undefined;
    const client = new Client(this.config);
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      if (this.client === client) this.client = undefined;
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      this.handlers.onError?.(err);
      this.retryTimer = setTimeout(() => this.connect(), this.retryDelayMs);
    };
    client.on('error', fail);
    client.on('end', () => fail(new Error('LISTEN connection ended')));
    client.on('notification', (msg) => {
      if (msg.channel === this.channel && msg.payload !== undefined) this.handlers.onNotification(msg.payload);
    });
    this.connecting = (async () => {
      try {
        await client.connect();
        await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
        if (this.stopped) {
          failed = true;
          await client.end().catch(() => undefined);
          return;
        }
        this.client = client;
        this.handlers.onConnected();
      } catch (err) {
        fail(err as Error);
      } finally {
        this.connecting = undefined;
      }
    })();
  }
}
