/**
 * Webhook retries (docs/design.md §4: exponential backoff with jitter for about three days). The first attempt
 * goes out as soon as the delivery is scheduled; entry i is the wait after attempt i+1 fails. So there
 * are 1 + 9 = 10 attempts, and the last one starts about 71 h 35 min (≈ 3 days) after the first:
 *
 *   attempt:   1     2      3       4       5     6     7      8      9      10
 *   wait:        5 s   5 min  30 min  2 h     5 h   10 h  10 h   20 h   24 h
 *   starts at: 0     5 s    5 min   35 min  2 h35 7 h35 17 h35 27 h35 47 h35 71 h35
 *
 * Each wait is spread by ±10 % (jitter) so that deliveries failed together do not retry together.
 */
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

/** ±10 %: a jitter of 0 waits 0.9x, 0.5 waits 1x, just under 1 waits 1.1x. */
export const JITTER_SPREAD = 0.2;

/**
 * The wait after failed attempt `attempt` (1-based), or null when the schedule is exhausted.
 * `jitter` is a number in [0, 1) drawn by the caller (the decider draws nothing itself).
 */
export function retryDelayMs(schedule: readonly number[], attempt: number, jitter: number): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + JITTER_SPREAD * (jitter - 0.5)));
}
