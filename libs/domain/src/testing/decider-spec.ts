import { deepStrictEqual, fail, strictEqual } from 'node:assert/strict';
import { isDomainError, type ErrorCode } from '@upscaler/contracts';
import { foldEvents, type Decider } from '../decider';

/**
 * Given/when/then for deciders (emmett's DeciderSpecification pattern):
 *
 *   DeciderSpecification.for(jobDecider).given([queued]).when(startJob).then([started]);
 *
 * Uses node:assert, not jest's `expect`, so that it type-checks in the production build as well and
 * can be reused by any service's tests. `then` returns the state after the new events, for callers
 * that want to assert a view as well.
 */
export interface DeciderThen<S, E> {
  /** The command produced exactly these events (deep, strict equality, order included). */
  then(expected: E[]): S;
  /** The command threw a DomainError with this code (and, when given, this message). */
  thenThrows(code: ErrorCode, message?: string | RegExp): void;
  /** The command was accepted and changed nothing (idempotent repeat). */
  thenNothing(): S;
}

export const DeciderSpecification = {
  for<S, C, E extends { type: string; data: unknown }>(decider: Decider<S, C, E>) {
    return {
      given(events: E[]) {
        return {
          when(command: C): DeciderThen<S, E> {
            const state = foldEvents(decider, events);
            const run = (): E[] => decider.decide(command, state);
            return {
              then(expected) {
                const actual = run();
                deepStrictEqual(actual, expected);
                return foldEvents(decider, actual, state);
              },
              thenThrows(code, message) {
                let produced: E[];
                try {
                  produced = run();
                } catch (e) {
                  if (!isDomainError(e)) throw e;
                  strictEqual(e.code, code, `expected DomainError ${code}, got ${e.code}: ${e.message}`);
                  if (typeof message === 'string') strictEqual(e.message, message);
                  else if (message) strictEqual(message.test(e.message), true, `message "${e.message}" !~ ${message}`);
                  return;
                }
                fail(`expected DomainError ${code}, got events ${JSON.stringify(produced)}`);
              },
              thenNothing() {
                deepStrictEqual(run(), []);
                return state;
              },
            };
          },
        };
      },
    };
  },
};
