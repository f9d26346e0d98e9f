import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NewEvent, StoredEvent } from '@upscaler/contracts';
import type { Decider, EventStore } from '@upscaler/eventstore';
import { commandHandlerFor } from './command-handler';
import { CLOCK, EVENT_STORE } from './tokens';

/** A counter: `Add` appends `Added` unless it would pass 10. */
type Counted = { type: 'Added'; data: { by: number; at: string } };
type Add = { type: 'Add'; data: { by: number; now: string } };
const counterDecider: Decider<number, Add, Counted> = {
  eventTypes: ['Added'],
  initialState: () => 0,
  decide: (c, total) => (total + c.data.by > 10 ? [] : [{ type: 'Added', data: { by: c.data.by, at: c.data.now } }]),
  evolve: (total, e) => total + e.data.by,
};
class CounterCommandHandler extends commandHandlerFor(counterDecider, (id) => `counter-${id}`) {}

/** The two calls handleCommand makes (readStream, append), on arrays. */
function memoryStore(): EventStore & { log: StoredEvent[] } {
  const log: StoredEvent[] = [];
  const store = {
    log,
    readStream: (streamId: string, after = 0) => Promise.resolve(log.filter((e) => e.streamId === streamId && e.version > after)),
    append: (streamId: string, expected: number, events: NewEvent[]) => {
      const version = log.filter((e) => e.streamId === streamId).length;
      if (version !== expected) throw new Error(`expected ${expected}, at ${version}`);
      const stored = events.map((e, i) => ({
        ...e,
        streamId,
        version: version + i + 1,
        position: log.length + i + 1,
        metadata: e.metadata ?? {},
        createdAt: 'now',
      }));
      log.push(...stored);
      return Promise.resolve({ nextVersion: version + events.length, lastPosition: log.length, events: stored });
    },
  };
  return store as unknown as EventStore & { log: StoredEvent[] };
}

describe('commandHandlerFor (one decider, its stream naming, the store and the clock bound once)', () => {
  const at = new Date('2026-11-29T10:00:00.000Z');

  it('Nest builds the named subclass from the EVENT_STORE and CLOCK tokens; commands go to the stream of the id', async () => {
    const store = memoryStore();
    @Module({
      providers: [CounterCommandHandler, { provide: EVENT_STORE, useValue: store }, { provide: CLOCK, useValue: { now: () => at } }],
    })
    class CounterModule {}
    const app = await NestFactory.createApplicationContext(CounterModule, { logger: false });
    const counters = app.get(CounterCommandHandler);

    expect(counters.now()).toEqual(at);
    const first = await counters.handle('a', { type: 'Add', data: { by: 4, now: counters.now().toISOString() } });
    const second = await counters.handle('a', { type: 'Add', data: { by: 5, now: 'later' } });
    const refused = await counters.handle('a', { type: 'Add', data: { by: 2, now: 'later' } });
    await counters.handle('b', { type: 'Add', data: { by: 1, now: 'later' } });

    expect([first.newState, first.nextVersion, second.newState, second.nextVersion]).toEqual([4, 1, 9, 2]);
    expect([refused.newState, refused.newEvents, refused.nextVersion]).toEqual([9, [], 2]);
    expect(store.log.map((e) => [e.streamId, e.version, e.data])).toEqual([
      ['counter-a', 1, { by: 4, at: '2026-11-29T10:00:00.000Z' }],
      ['counter-a', 2, { by: 5, at: 'later' }],
      ['counter-b', 1, { by: 1, at: 'later' }],
    ]);
    await app.close();
  });

  it('passes the options through (metadata on every new event)', async () => {
    const store = memoryStore();
    const counters = new CounterCommandHandler(store, { now: () => at });
    await counters.handle('c', { type: 'Add', data: { by: 3, now: 'x' } }, { metadata: { producer: 'test', correlationId: 'c' } });
    expect(store.log.map((e) => e.metadata)).toEqual([{ producer: 'test', correlationId: 'c' }]);
  });
});
