/** The longest wait a client may ask for: longer asks are served as this. */
export const MAX_WAIT_SECONDS = 60;

/**
 * The `wait` preference of a `Prefer` header (RFC 7240 §4.3: `Prefer: wait=10`), in seconds, at most
 * MAX_WAIT_SECONDS; undefined when the request states none or an unusable one (a preference a server cannot honour
 * is ignored, never an error: RFC 7240 §2). Several Prefer headers, or several preferences in one, are allowed;
 * the first `wait` wins. Our own few lines: Express and Nest do not parse Prefer, and the grammar is this small.
 */
export function preferredWaitSeconds(header: string | string[] | undefined): number | undefined {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  for (const value of values) {
    for (const preference of value.split(',')) {
      const token = preference.split(';')[0];
      const eq = token.indexOf('=');
      if ((eq < 0 ? token : token.slice(0, eq)).trim().toLowerCase() !== 'wait') continue;
      const raw =
        eq < 0
          ? ''
          : token
              .slice(eq + 1)
              .trim()
              .replace(/^"(.*)"$/, '$1');
      return /^\d+$/.test(raw) ? Math.min(Number(raw), MAX_WAIT_SECONDS) : undefined;
    }
  }
  return undefined;
}

/** `Preference-Applied: wait=N` for the wait that was honoured (RFC 7240 §3). */
export function preferenceApplied(seconds: number): Record<string, string> {
  return { 'Preference-Applied': `wait=${seconds}` };
}
