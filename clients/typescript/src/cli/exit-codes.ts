/** The CLI's exit statuses (README: "Exit codes"); scripts branch on them. */
export const EXIT = {
  /** Every input has its output (made now or found from an earlier run). */
  ok: 0,
  /** Something unexpected: a network failure that outlived the retries, a bug. */
  error: 1,
  /** Bad arguments, or no key. */
  usage: 2,
  /** At least one input could not be upscaled (its job failed, or the service refused it); the others were. */
  someFailed: 3,
  /** The key was refused (401 unauthorized) or lacks a scope (403 forbidden). */
  auth: 4,
  /** The account ran out of credits (402 insufficient_credits): the rest was not submitted. */
  credits: 5,
  /** Stopped by SIGINT (128 + 2, as shells report it); run the same command again to resume. */
  interrupted: 130,
} as const;
