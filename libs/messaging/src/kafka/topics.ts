import type { Admin } from 'kafkajs';

/**
 * Creates the topics that are missing (idempotent; several replicas may race, which is fine).
 * Brokers may run with auto-creation off, so nothing relies on it.
 */
export async function ensureTopics(
  admin: Admin,
  topics: string[],
  partitions: number,
  configEntries: Array<{ name: string; value: string }> = [],
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
    const errors = (err as { errors?: Array<{ type?: string }> }).errors;
    if (!errors || !errors.every((e) => e.type === 'TOPIC_ALREADY_EXISTS')) throw err;
  }
}
