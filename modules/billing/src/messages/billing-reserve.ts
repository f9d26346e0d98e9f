import { z } from 'zod';

/**
 * Request/reply contract `upscale.billing.reserve.v1` (docs/design.md §2): the api asks billing to reserve a
 * job's credits before it answers POST /upscale. One validated schema per message (amplication style).
 */
export const BillingReserveRequestSchema = z.object({
  accountId: z.string().min(1),
  jobId: z.string().min(1),
  amount: z.number().int().positive(),
  /** W3C traceparent of the HTTP request. */
  traceparent: z.string().optional(),
  /**
   * When the api stops waiting (ISO 8601): a request billing reads later (delivered late, e.g. after a broker
   * restart) reserves nothing, since its client was already answered 503 billing_unavailable.
   */
  answerBy: z.string().datetime().optional(),
});
export type BillingReserveRequest = z.infer<typeof BillingReserveRequestSchema>;

export const BillingReserveReplySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), available: z.number().int() }),
  z.object({ ok: z.literal(false), code: z.enum(['insufficient_credits', 'account_not_found', 'too_late']), message: z.string() }),
]);
export type BillingReserveReply = z.infer<typeof BillingReserveReplySchema>;

/** `upscale.billing.release.v1`: the api gives up a job it reserved credits for but did not create. */
export const BillingReleaseRequestSchema = z.object({
  accountId: z.string().min(1),
  jobId: z.string().min(1),
});
export type BillingReleaseRequest = z.infer<typeof BillingReleaseRequestSchema>;
