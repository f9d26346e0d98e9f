/** Time is passed into deciders (contributing/STYLE.md); services read it here so tests could pin it. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
