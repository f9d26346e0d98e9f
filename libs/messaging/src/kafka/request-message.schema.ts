import { z } from 'zod';

/** A request on a request topic (e.g. `upscale.billing.reserve.v1`); the reply goes to `replyTo`. */
export const RequestMessageSchema = z.object({
  correlationId: z.string().min(1),
  replyTo: z.string().min(1),
  /** Epoch ms after which the requester has given up: responders skip it instead of acting late. */
  expiresAt: z.number().int(),
  payload: z.unknown(),
});
export type RequestMessage = z.infer<typeof RequestMessageSchema>;

/** The answer on the requester's reply topic: a result, or the responder's error by name and message. */
export const ReplyMessageSchema = z.discriminatedUnion('ok', [
  z.object({ correlationId: z.string().min(1), ok: z.literal(true), result: z.unknown() }),
  z.object({
    correlationId: z.string().min(1),
    ok: z.literal(false),
    error: z.object({ name: z.string(), message: z.string(), code: z.string().optional() }),
  }),
]);
export type ReplyMessage = z.infer<typeof ReplyMessageSchema>;

/** The responder's handler threw: the requester gets its name, message and code (when it had one). */
export class RemoteHandlerError extends Error {
  constructor(
    readonly topic: string,
    readonly remoteName: string,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'RemoteHandlerError';
  }
}
