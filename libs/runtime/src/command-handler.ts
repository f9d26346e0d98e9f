import { Inject, Injectable } from '@nestjs/common';
import { handleCommand, type Decider, type EventStore, type HandleCommandOptions, type HandleCommandResult } from '@upscaler/eventstore';
import type { Clock } from './clock';
import { CLOCK, EVENT_STORE } from './tokens';

/**
 * One decider's command handler (emmett's `DeciderCommandHandler`): the event store, the clock and the decider's
 * stream naming, bound once. A class that runs a capability's commands injects its handler (e.g. `JobCommandHandler`)
 * instead of the store, the clock, the decider and `streams.*` at every call.
 */
export interface CommandHandler<S, C> {
  /** Runs `command` on the stream of `id` (`handleCommand`: optimistic concurrency, re-decided on a conflict). */
  handle(id: string, command: C, opts?: HandleCommandOptions): Promise<HandleCommandResult<S>>;
  /** The clock's time: what commands carry as `now` (deciders take time as input, contributing/STYLE.md). */
  now(): Date;
}

/**
 * The Nest provider class of one decider's handler; a capability names it with a subclass,
 * `export class JobCommandHandler extends commandHandlerFor(jobDecider, streams.job) {}`, so classes inject it by type
 * and tests build it with `new JobCommandHandler(store, clock)`.
 */
export function commandHandlerFor<S, C, E extends { type: string; data: unknown }>(
  decider: Decider<S, C, E>,
  streamOf: (id: string) => string,
): new (store: EventStore, clock: Clock) => CommandHandler<S, C> {
  @Injectable()
  class DeciderCommandHandler implements CommandHandler<S, C> {
    constructor(
      @Inject(EVENT_STORE) private readonly store: EventStore,
      @Inject(CLOCK) private readonly clock: Clock,
    ) {}

    handle(id: string, command: C, opts?: HandleCommandOptions): Promise<HandleCommandResult<S>> {
      return handleCommand(this.store, streamOf(id), decider, command, opts);
    }

    now(): Date {
      return this.clock.now();
    }
  }
  return DeciderCommandHandler;
}
