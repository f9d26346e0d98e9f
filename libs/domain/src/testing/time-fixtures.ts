/** Fixed times for specs: T0, and `at(ms)`, an offset from it, as canonical ISO strings. */
export const T0 = '2026-01-01T00:00:00.000Z';
export function at(ms: number): string {
  return new Date(Date.parse(T0) + ms).toISOString();
}
