import type { DataSource } from 'typeorm';
import { useTestPostgres } from '@upscaler/testing';
import {
  EVENT_STORE_MIGRATIONS,
  PostgresEventStore,
  WrongExpectedVersionError,
  handleCommand,
  type Decider,
  type EventStore,
} from '@upscaler/eventstore';

type Command = { type: 'Add'; amount: number } | { type: 'Close' };
type Event = { type: 'Added'; data: { amount: number } } | { type: 'Closed'; data: Record<string, never> };
interface State {
  total: number;
  closed: boolean;
}

class ClosedError extends Error {
  readonly code = 'closed';
}

/** A tiny tally: "add" is refused once closed, "close" twice decides nothing. */
const tally: Decider<State, Command, Event> = {
  eventTypes: ['Added', 'Closed'],
  initialState: () => ({ total: 0, closed: false }),
  decide(command, state) {
    if (command.type === 'Close') return state.closed ? [] : [{ type: 'Closed', data: {} }];
    if (state.closed) throw new ClosedError('tally is closed');
    return [{ type: 'Added', data: { amount: command.amount } }];
  },
  evolve(state, event) {
    return event.type === 'Added' ? { ...state, total: state.total + event.data.amount } : { ...state, closed: true };
  },
};

/** The real store, but another writer appends `competing` just before each of our appends. */
function withCompetingWriter(store: EventStore, competing: () => { type: string; data: unknown } | null): EventStore & { appends: number } {
  const wrapped = {
    appends: 0,
    readStream: (id: string, after?: number) => store.readStream(id, after),
    readAll: store.readAll.bind(store),
    headPosition: () => store.headPosition(),
    onAppended: store.onAppended.bind(store),
    async append(...args: Parameters<EventStore['append']>) {
      wrapped.appends++;
      const event = competing();
      if (event) await store.append(args[0], 'any', [event]);
      return store.append(...args);
    },
  };
  return wrapped;
}

const pg = useTestPostgres();

describe('handleCommand', () => {
  let db: DataSource;
  let store: PostgresEventStore;
  beforeAll(async () => {
    db = await pg.dataSource(EVENT_STORE_MIGRATIONS);
    store = new PostgresEventStore(db);
  });

  it('folds the stream, decides, appends at the read version and returns the new state', async () => {
    const first = await handleCommand(store, 'account-t1', tally, { type: 'Add', amount: 5 }, { metadata: { correlationId: 'req_1' } });
    expect(first.newState).toEqual({ total: 5, closed: false });
    expect(first.nextVersion).toBe(1);
    expect(first.newEvents.map((e) => [e.streamId, e.version, e.type, e.data, e.metadata])).toEqual([
      ['account-t1', 1, 'Added', { amount: 5 }, { correlationId: 'req_1' }],
    ]);
    const second = await handleCommand(store, 'account-t1', tally, { type: 'Add', amount: 3 });
    expect(second.newState).toEqual({ total: 8, closed: false });
    expect(second.nextVersion).toBe(2);
  });

  it('a command that decides nothing appends nothing', async () => {
    await handleCommand(store, 'account-t2', tally, { type: 'Close' });
    const head = await store.headPosition();
    const again = await handleCommand(store, 'account-t2', tally, { type: 'Close' });
    expect(again).toEqual({ newState: { total: 0, closed: true }, newEvents: [], nextVersion: 1 });
    expect(await store.headPosition()).toBe(head);
  });

  it('a domain error from decide propagates and nothing is appended', async () => {
    await handleCommand(store, 'account-t3', tally, { type: 'Close' });
    await expect(handleCommand(store, 'account-t3', tally, { type: 'Add', amount: 1 })).rejects.toBeInstanceOf(ClosedError);
    expect(await store.readStream('account-t3')).toHaveLength(1);
  });

  it('on a conflict the command is re-read and re-decided on the fresh state, never overwritten', async () => {
    // Between our read and our append, someone closes the tally (like a cancel racing a finish).
    let competed = false;
    const racing = withCompetingWriter(store, () => (competed ? null : ((competed = true), { type: 'Closed', data: {} })));
    await expect(handleCommand(racing, 'account-t4', tally, { type: 'Add', amount: 2 })).rejects.toBeInstanceOf(ClosedError);
    expect(racing.appends).toBe(1);
    expect((await store.readStream('account-t4')).map((e) => e.type)).toEqual(['Closed']);
  });

  it('a conflict whose re-decision still applies is appended after the competing event', async () => {
    let competed = false;
    const racing = withCompetingWriter(store, () => (competed ? null : ((competed = true), { type: 'Added', data: { amount: 10 } })));
    const result = await handleCommand(racing, 'account-t5', tally, { type: 'Add', amount: 1 });
    expect(racing.appends).toBe(2);
    expect(result.newState).toEqual({ total: 11, closed: false });
    expect(result.nextVersion).toBe(2);
    expect((await store.readStream('account-t5')).map((e) => e.data)).toEqual([{ amount: 10 }, { amount: 1 }]);
  });

  it('gives up with WrongExpectedVersionError after the configured retries', async () => {
    const racing = withCompetingWriter(store, () => ({ type: 'Added', data: { amount: 1 } }));
    await expect(handleCommand(racing, 'account-t6', tally, { type: 'Add', amount: 1 }, { retries: 2 })).rejects.toBeInstanceOf(
      WrongExpectedVersionError,
    );
    expect(racing.appends).toBe(3);
    expect((await store.readStream('account-t6')).map((e) => e.data)).toEqual([{ amount: 1 }, { amount: 1 }, { amount: 1 }]);
  });

  it('concurrent commands on one stream all land, each decided on the state it appended after', async () => {
    const amounts = [1, 2, 3, 4, 5, 6, 7, 8];
    const results = await Promise.all(
      amounts.map((amount) => handleCommand(store, 'account-t7', tally, { type: 'Add', amount }, { retries: amounts.length })),
    );
    const events = await store.readStream('account-t7');
    expect(events.map((e) => e.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.map((e) => (e.data as { amount: number }).amount).sort((a, b) => a - b)).toEqual(amounts);
    // Each result's state is the running total at its own version.
    let running = 0;
    const totalAt = new Map(events.map((e) => [e.version, (running += (e.data as { amount: number }).amount)]));
    for (const r of results) expect(r.newState.total).toBe(totalAt.get(r.nextVersion));
  });

  it('a later command reads only the events after the state it folded before, and still sees other writers', async () => {
    const reads: Array<number | undefined> = [];
    const counting: EventStore = {
      readStream: (id: string, after?: number) => (reads.push(after), store.readStream(id, after)),
      readAll: store.readAll.bind(store),
      headPosition: () => store.headPosition(),
      onAppended: store.onAppended.bind(store),
      append: store.append.bind(store),
    };
    for (const amount of [1, 2, 3]) await handleCommand(counting, 'account-t8', tally, { type: 'Add', amount });
    expect(reads).toEqual([0, 1, 2]);
    // another process appends (its own handleCommand, with its own cache): ours reads it as part of the tail
    await store.append('account-t8', 3, [{ type: 'Added', data: { amount: 100 } }]);
    const after = await handleCommand(counting, 'account-t8', tally, { type: 'Add', amount: 4 });
    expect(reads).toEqual([0, 1, 2, 3]);
    expect(after.newState).toEqual({ total: 110, closed: false });
    expect(after.nextVersion).toBe(5);
  });

  it('after a conflict the retry folds the whole stream again', async () => {
    const reads: Array<number | undefined> = [];
    let compete = false;
    const racing = withCompetingWriter(store, () => (compete ? ((compete = false), { type: 'Added', data: { amount: 10 } }) : null));
    const spying: EventStore = {
      readStream: (id: string, after?: number) => (reads.push(after), racing.readStream(id, after)),
      readAll: racing.readAll,
      headPosition: racing.headPosition,
      onAppended: racing.onAppended,
      append: (...args) => racing.append(...args),
    };
    await handleCommand(spying, 'account-t9', tally, { type: 'Add', amount: 1 });
    compete = true;
    const result = await handleCommand(spying, 'account-t9', tally, { type: 'Add', amount: 2 });
    expect(reads).toEqual([0, 1, 0]);
    expect(result.newState).toEqual({ total: 13, closed: false });
    expect(result.nextVersion).toBe(3);
  });
});
