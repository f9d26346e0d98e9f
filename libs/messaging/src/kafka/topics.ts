import type { Admin } from 'kafkajs';

/** Metadata answers a freshly created topic gets from a KRaft broker for a moment (both retriable). */
const NOT_YET_VISIBLE = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/**
 * Creates the topics that are missing (idempotent; several replicas may race, which is fine).
 * Brokers may run with auto-creation off, so nothing relies on it.
 */
export async function ensureTopics(
  admin: Admin,
  topics: string[],
  partitions: number,
  configEntries: Array<{ name: string; value: string }> = [],
  leaderTimeoutMs = 30_000,
): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = [...new Set(topics)].filter((t) => !existing.has(t));
  if (missing.length === 0) return;
  try {
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({ topic, numPartitions: partitions, configEntries })),
    });
  } catch (err) {
    const e = err as { type?: string; errors?: Array<{ type?: string }> };
    // The topics were created, but kafkajs' own wait for their leaders gives up when the broker
    // does not know them yet (KRaft publishes new metadata a moment later): wait here instead.
    if (e.type && NOT_YET_VISIBLE.has(e.type)) return waitForLeaders(admin, missing, leaderTimeoutMs);
    if (!e.errors || !e.errors.every((x) => x.type === 'TOPIC_ALREADY_EXISTS')) throw err;
  }
}

async function waitForLeaders(admin: Admin, topics: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      const { topics: meta } = await admin.fetchTopicMetadata({ topics });
      const ready = meta.length === topics.length && meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
      if (ready) return;
    } catch (err) {
      if (!NOT_YET_VISIBLE.has((err as { type?: string }).type ?? '')) throw err;
    }
    if (Date.now() > deadline) throw new Error(`Kafka topics ${topics.join(', ')} have no leaders after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, delay));
  }
}
