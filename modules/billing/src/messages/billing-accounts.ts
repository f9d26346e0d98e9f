import { z } from 'zod';

/**
 * Request/reply contract `upscale.billing.accounts.v1` (docs/design.md §2, one owner per stream): the api's
 * operator routes ask billing, the only writer of account streams, to open an account, grant credits
 * or set its concurrent-job limit. The api has validated the body already; billing's decider decides.
 */
export const BillingAccountCommandSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('open'), accountId: z.string().min(1), name: z.string().min(1), credits: z.number().int().min(0) }),
  z.object({ op: z.literal('grant'), accountId: z.string().min(1), amount: z.number().int().positive() }),
  z.object({ op: z.literal('limits'), accountId: z.string().min(1), maxConcurrentJobs: z.number().int().positive().nullable() }),
]);
export type BillingAccountCommand = z.infer<typeof BillingAccountCommandSchema>;

export const BillingAccountReplySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), code: z.enum(['invalid_request', 'not_found', 'conflict']), message: z.string() }),
]);
export type BillingAccountReply = z.infer<typeof BillingAccountReplySchema>;
