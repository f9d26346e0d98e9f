/**
 * What /health/ready checks: one probe per dependency and per consumer or loop a service runs
 * (Postgres, storage, Kafka, the processor's claim loop, the webhook scheduler's subscription). Each
 * resolves when its part works and rejects with the reason otherwise.
 */
export class Readiness {
  private readonly probes = new Map<string, () => Promise<void>>();

  register(name: string, probe: () => Promise<void>): void {
    this.probes.set(name, probe);
  }

  entries(): Array<[string, () => Promise<void>]> {
    return [...this.probes.entries()];
  }
}
