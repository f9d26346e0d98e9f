import { asEvents, type EventMetadata, type NewEvent, type StoredEvent } from '@upscaler/contracts';
import type { Decider } from './decider';
import { WrongExpectedVersionError, type AppendOptions, type EventStore } from './event-store.port';
import { StreamStateCache } from './stream-state-cache';

/** One cache per (store, decider): the same stream id folded by another decider is another state. */
const caches = new WeakMap<EventStore, WeakMap<object, StreamStateCache<unknown>>>();

function cacheOf<S>(store: EventStore, decider: object): StreamStateCache<S> {
  let byDecider = caches.get(store);
  if (!byDecider) caches.set(store, (byDecider = new WeakMap()));
  let cache = byDecider.get(decider);
  if (!cache) byDecider.set(decider, (cache = new StreamStateCache()));
  return cache as StreamStateCache<S>;
}

export interface HandleCommandOptions {
  /** How many times a conflict is re-read and re-decided before giving up. Default 3. */
  retries?: number;
  /** Copied onto every new event (causation/correlation ids, trace context, producer). */
  metadata?: EventMetadata;
  /** Checked inside the append's transaction (`AppendOptions.guard`); throwing aborts the command. */
  guard?: AppendOptions['guard'];
}

export interface HandleCommandResult<S> {
  newState: S;
  /** Empty when the decider decided nothing (then nothing was appended). */
  newEvents: StoredEvent[];
  /** Version of the stream after the command (unchanged when nothing was appended). */
  nextVersion: number;
}

/**
 * Runs one command against one stream with optimistic concurrency (docs/design.md §2: "a conflict is
 * re-read and re-decided, never overwritten"): read the stream, fold `evolve` from `initialState()`,
 * `decide`, append with expected version = the version read. When another writer appended in
 * between, the append fails with `WrongExpectedVersionError`; the command is then decided again on
 * the fresh state, so e.g. "finish beats cancel" (spec 3) holds whichever request arrives second.
 * Errors thrown by `decide` (domain errors) propagate unchanged.
 * The state folded at a version is kept (StreamStateCache), so the next command on the stream reads only the
 * events after it; a conflict drops it and the retry folds the stream from the start.
 */
export async function handleCommand<S, C, E extends { type: string; data: unknown }>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  opts: HandleCommandOptions = {},
): Promise<HandleCommandResult<S>> {
  const retries = opts.retries ?? 3;
  const cache = cacheOf<S>(store, decider);
  for (let attempt = 0; ; attempt++) {
    // a conflict dropped the entry (below), so a retry folds from the start unless another command cached since
    const from = cache.get(streamId) ?? { version: 0, state: decider.initialState() };
    const tail = await store.readStream(streamId, from.version);
    const state = asEvents(decider.eventTypes, tail).reduce((s, e) => decider.evolve(s, e), from.state);
    const version = tail.length === 0 ? from.version : tail[tail.length - 1].version;
    if (tail.length > 0) cache.set(streamId, version, state);
    const decided = decider.decide(command, state);
    if (decided.length === 0) return { newState: state, newEvents: [], nextVersion: version };

    const toAppend: NewEvent[] = decided.map((e) => ({
      type: e.type,
      data: e.data,
      ...(opts.metadata ? { metadata: opts.metadata } : {}),
    }));
    try {
      const result = await store.append(streamId, version, toAppend, opts.guard ? { guard: opts.guard } : undefined);
      const newState = asEvents(decider.eventTypes, result.events).reduce((s, e) => decider.evolve(s, e), state);
      cache.set(streamId, result.nextVersion, newState);
      return { newState, newEvents: result.events, nextVersion: result.nextVersion };
    } catch (err) {
      if (!(err instanceof WrongExpectedVersionError) || attempt >= retries) throw err;
      cache.delete(streamId);
    }
  }
}
