import { DomainError, WEBHOOK_EVENT_TYPES } from '@upscaler/contracts';
import { WEBHOOK_TEST_EVENT_TYPE } from '../model/webhook.events';
import {
  type DeliveryAttemptView,
  type WebhookEndpointView,
  type WebhookDeliveryView,
  type WebhookPayload,
  type WebhookTestPayload,
} from '../model/webhook.views';
import { DEFAULT_SECRET_OVERLAP_SECONDS, MAX_SECRET_OVERLAP_SECONDS } from '../model/webhook-endpoint.decider';
import { JobSchema } from '@upscaler/jobs';
import { id, idParam, listOf, nullableTimestamp, param, timestamp, z } from '@upscaler/http-api';

/** Webhooks' contract (docs/design.md §6): endpoint registration, the delivery log, and the deliveries' body. */

export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES).openapi('WebhookEventType');

export const WebhookEndpointSchema = z
  .object({
    id: id('we', 'Webhook endpoint'),
    object: z.literal('webhook_endpoint'),
    url: z
      .string()
      .url()
      .regex(/^https:\/\//)
      .max(2048)
      .openapi({ pattern: '^https://' }),
    events: z.array(WebhookEventTypeSchema).min(1).openapi({ uniqueItems: true }),
    description: z.string().max(500).nullable(),
    status: z.enum(['enabled', 'disabled']).openapi({
      description: 'disabled after DELETE, or after the endpoint answered 410 Gone. A disabled endpoint gets no deliveries.',
    }),
    created_at: timestamp('When the endpoint was registered.'),
    disabled_reason: z.enum(['gone', 'deleted']).nullable().openapi({
      description:
        'Additive field: why the endpoint is disabled (gone: it answered 410; deleted: DELETE); null while enabled. Only a gone one can be enabled again.',
    }),
    secret_rotated_at: nullableTimestamp('Additive field: when the signing secret was last rotated; null if never.'),
    previous_secret_expires_at: nullableTimestamp(
      'Additive field: until when deliveries are also signed with the secret before the last rotation; null when none is kept.',
    ),
  })
  .openapi('WebhookEndpoint', {
    description: 'A registered webhook endpoint. The signing secret is shown only once (WebhookEndpointCreated).',
  });

export const WebhookEndpointCreatedSchema = WebhookEndpointSchema.extend({
  secret: z.string().regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/),
}).openapi('WebhookEndpointCreated', {
  description: 'The creation answer: the endpoint plus its signing secret. This is the only time it is shown.',
});

export const WebhookEndpointListSchema = listOf(
  WebhookEndpointSchema,
  'Every webhook endpoint of the account (disabled ones included); never paged.',
).openapi('WebhookEndpointList');

export const DeliveryAttemptSchema = z
  .object({
    id: z
      .string()
      .regex(/^dlv_[0-9a-f]{32}_[0-9]+$/)
      .openapi({ description: 'The delivery id and the attempt number.' }),
    object: z.literal('webhook_delivery_attempt'),
    delivery_id: z
      .string()
      .regex(/^dlv_[0-9a-f]{32}$/)
      .openapi({ description: 'The delivery; also the webhook-id header of every attempt of it.' }),
    event_type: z.enum([...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE]).openapi({
      description: 'The event delivered: a job event, or webhook.test (the test event an account owner sends on demand).',
    }),
    job_id: z
      .string()
      .regex(/^job_[0-9a-f]{32}$/)
      .nullable()
      .openapi({ description: 'The job of the event; null for a test event (webhook.test).' }),
    message_id: z
      .string()
      .regex(/^dlv_[0-9a-f]{32}$/)
      .openapi({
        description:
          "Additive field: the webhook-id header of the delivery's attempts: the delivery id, or for a re-delivery its original's.",
      }),
    redelivery_of: z
      .string()
      .regex(/^dlv_[0-9a-f]{32}$/)
      .nullable()
      .openapi({ description: 'Additive field: the delivery this one re-sends; null for an original delivery.' }),
    attempt: z.number().int().min(1),
    status_code: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The endpoint's HTTP status; null when no answer came (DNS, connection, TLS, timeout, refused address)." }),
    error: z.string().nullable().openapi({ description: 'Why the attempt failed; null when it succeeded (2xx).' }),
    outcome: z.enum(['succeeded', 'retrying', 'abandoned', 'endpoint_gone']).openapi({
      description:
        'succeeded: 2xx. retrying: another attempt is scheduled at next_attempt_at. abandoned: the retry schedule is used up or the endpoint was disabled. endpoint_gone: the endpoint answered 410 and was disabled.',
    }),
    attempted_at: timestamp('When the attempt was made.'),
    next_attempt_at: nullableTimestamp('When the next attempt is due (outcome retrying); otherwise null.'),
  })
  .openapi('DeliveryAttempt', { description: 'One attempt to deliver one event to one endpoint.' });

/** Whatever the schemas accept has the view's TypeScript type (checked by the compiler). */
export const viewsFitTheirSchemas: [
  z.output<typeof WebhookEndpointSchema> extends WebhookEndpointView ? true : never,
  z.output<typeof WebhookEndpointCreatedSchema> extends WebhookEndpointView ? true : never,
  z.output<typeof DeliveryAttemptSchema> extends DeliveryAttemptView ? true : never,
] = [true, true, true];

export const DeliveryAttemptListSchema = listOf(
  DeliveryAttemptSchema,
  'Delivery attempts of one endpoint (see the operation for their order).',
).openapi('DeliveryAttemptList');

export const WebhookPayloadSchema = z
  .object({
    type: WebhookEventTypeSchema,
    timestamp: timestamp('When the job reached its final state (the time of the event).'),
    data: JobSchema.openapi({ description: 'The job, retrieve view, as of that event.' }),
  })
  .openapi('WebhookPayload', { description: 'The body of every webhook delivery (docs/design.md §6).' });

export const payloadFitsItsSchema: [z.output<typeof WebhookPayloadSchema> extends WebhookPayload ? true : never] = [true];

// ---------------------------------------------------------------------------------------------
// Requests

export const WebhookEndpointIdParam = idParam('we', 'Webhook endpoint', 'we_0190a1b2c3d47e8f9a0b1c2d3e4f5a6e');
export const WebhookEndpointPathParams = z.object({ id: WebhookEndpointIdParam });

export const CreateEndpointBody = z.object({
  url: z.string().min(1).max(2048).openapi({
    format: 'uri',
    pattern: '^https://',
    description: 'HTTPS, without credentials, resolving only to public addresses (checked now and on every delivery).',
  }),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).optional().openapi({ description: 'Event types to receive. Omitted: all of them.' }),
  description: z.string().max(500).optional(),
});

export const DeliveriesQuery = z.object({
  limit: param(
    z.preprocess((v) => (v === undefined ? undefined : Number(v)), z.number().int().min(1).max(100).default(50)),
    'How many attempts to return (the latest, across deliveries).',
  ),
});
export const DELIVERIES_QUERY_ERRORS = {
  limit: () => new DomainError('invalid_request', 'limit must be an integer from 1 to 100.'),
};

// ---------------------------------------------------------------------------------------------
// Webhook ergonomics (docs/api.md "Webhooks"): rotation, test event, re-delivery

const deliveryIdSchema = (description: string) =>
  z
    .string()
    .regex(/^dlv_[0-9a-f]{32}$/)
    .openapi({ description });

export const WebhookDeliverySchema = z
  .object({
    id: deliveryIdSchema('The new delivery: its attempts appear in the delivery log under this delivery_id.'),
    object: z.literal('webhook_delivery'),
    endpoint_id: id('we', 'Webhook endpoint'),
    event_type: z.enum([...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE]).openapi({ description: 'A job event type, or webhook.test.' }),
    job_id: z
      .string()
      .regex(/^job_[0-9a-f]{32}$/)
      .nullable()
      .openapi({ description: 'The job of the event; null for a test event.' }),
    message_id: deliveryIdSchema('The webhook-id header its attempts carry: its own id, or for a re-delivery the original message id.'),
    redelivery_of: z
      .string()
      .regex(/^dlv_[0-9a-f]{32}$/)
      .nullable()
      .openapi({ description: 'The delivery re-sent; null for a test event.' }),
    scheduled_at: timestamp('When it was scheduled; the first attempt goes out at once.'),
  })
  .openapi('WebhookDelivery', { description: 'A delivery scheduled on demand: a test event or a re-delivery.' });

export const WebhookTestPayloadSchema = z
  .object({
    type: z.literal(WEBHOOK_TEST_EVENT_TYPE),
    timestamp: timestamp('When the test event was asked for.'),
    data: z.object({ endpoint_id: id('we', 'Webhook endpoint') }),
  })
  .openapi('WebhookTestPayload', { description: 'The body of a test event (POST /webhook_endpoints/{id}/test).' });

export const ergonomicsViewsFitTheirSchemas: [
  z.output<typeof WebhookDeliverySchema> extends WebhookDeliveryView ? true : never,
  z.output<typeof WebhookTestPayloadSchema> extends WebhookTestPayload ? true : never,
] = [true, true];

export const WebhookDeliveryPathParams = z.object({
  id: WebhookEndpointIdParam,
  delivery_id: z.string().openapi({
    param: {
      name: 'delivery_id',
      in: 'path',
      description: "A delivery of this endpoint (delivery_id in its delivery log). Malformed, unknown or another endpoint's: 404.",
      example: 'dlv_3f2a9c0d1e4b5a697887766554433221',
    },
  }),
});

export const RotateSecretBody = z.object({
  overlap_seconds: z.number().int().min(0).max(MAX_SECRET_OVERLAP_SECONDS).default(DEFAULT_SECRET_OVERLAP_SECONDS).openapi({
    description:
      'How long the previous secret keeps signing deliveries beside the new one (both signatures are sent). 0: it stops at once.',
  }),
});
export const ROTATE_SECRET_BODY_ERRORS = {
  overlap_seconds: () => new DomainError('invalid_request', `overlap_seconds must be an integer from 0 to ${MAX_SECRET_OVERLAP_SECONDS}.`),
};
