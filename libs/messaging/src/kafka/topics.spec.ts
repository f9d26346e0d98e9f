import { KafkaJSProtocolError, type Admin } from 'kafkajs';
import { ensureTopics } from './topics';

/**
 * The race a real KRaft broker loses only now and then (a service failed to start on it): right
 * after CreateTopics, Metadata answers UNKNOWN_TOPIC_OR_PARTITION for the new topic, and kafkajs'
 * createTopics({ waitForLeaders: true }) gives up with that error although the topic exists. A
 * scripted admin replays that sequence, since the real broker cannot be made to lose it on demand.
 */
function unknownTopic(): KafkaJSProtocolError {
  return new KafkaJSProtocolError({
    type: 'UNKNOWN_TOPIC_OR_PARTITION',
    code: 3,
    retriable: true,
    message: 'This server does not host this topic-partition',
  } as unknown as Error);
}

function scriptedAdmin(metadataAnswers: Array<'unknown' | 'no-leader' | 'ready'>) {
  const calls: string[] = [];
  const admin = {
    listTopics: async () => [],
    createTopics: async () => {
      calls.push('createTopics');
      throw unknownTopic();
    },
    fetchTopicMetadata: async ({ topics }: { topics: string[] }) => {
      const answer = metadataAnswers.shift() ?? 'ready';
      calls.push(`metadata:${answer}`);
      if (answer === 'unknown') throw unknownTopic();
      return { topics: topics.map((name) => ({ name, partitions: [{ partitionId: 0, leader: answer === 'ready' ? 1 : -1 }] })) };
    },
  };
  return { admin: admin as unknown as Admin, calls };
}

describe('ensureTopics', () => {
  it('waits for the leaders itself when kafkajs gives up on a topic the broker does not show yet', async () => {
    const { admin, calls } = scriptedAdmin(['unknown', 'no-leader', 'ready']);
    await ensureTopics(admin, ['upscale.job-events.v1'], 4);
    expect(calls).toEqual(['createTopics', 'metadata:unknown', 'metadata:no-leader', 'metadata:ready']);
  });

  it('gives up after the leader timeout with the topics named', async () => {
    const { admin } = scriptedAdmin(Array(1000).fill('unknown'));
    await expect(ensureTopics(admin, ['upscale.job-events.v1'], 4, [], 200)).rejects.toThrow(
      'Kafka topics upscale.job-events.v1 have no leaders after 200 ms',
    );
  });
});
