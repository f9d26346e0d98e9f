import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { type JobStatus, type WebhookEventType, WEBHOOK_EVENT_TYPES } from '@upscaler/contracts';
import { WEBHOOK_TEST_EVENT_TYPE } from '../model/webhook.events';
import { defineEndpoint, errorResponse, jsonBody, jsonBodyErrors, jsonResponse, param, registerEndpoints, z } from '@upscaler/http-api';
import {
  CreateEndpointBody,
  DeliveriesQuery,
  DeliveryAttemptListSchema,
  RotateSecretBody,
  WebhookDeliveryPathParams,
  WebhookDeliverySchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointListSchema,
  WebhookEndpointPathParams,
  WebhookEndpointSchema,
  WebhookTestPayloadSchema,
} from './webhooks.schemas';

const notFound = (what = 'No webhook endpoint with that id in this account.') => errorResponse(404, ['not_found'], 'always', what);
const deleted = 'webhook_endpoint_deleted: the endpoint was deleted (it stays listed, disabled_reason deleted); register a new one.';
const sendable = 'webhook_endpoint_disabled: the endpoint is disabled (a delivery answered 410); enable it first. ' + deleted;

/**
 * docs/design.md §6: webhook endpoint registration (webhook-endpoints.controller.ts), and its ergonomics (docs/api.md
 * "Webhooks"; docs/design.md §4): rotation, re-enabling, test event, re-delivery. Each endpoint declared once.
 */
export const WEBHOOK_ENDPOINT_ENDPOINTS = {
  createWebhookEndpoint: defineEndpoint({
    method: 'post',
    path: '/api/v1/webhook_endpoints',
    operationId: 'createWebhookEndpoint',
    tags: ['Webhooks'],
    summary: 'Register a webhook endpoint',
    description:
      'The URL must be HTTPS, without credentials, and resolve only to public addresses (the same SSRF guard as ' +
      'image URLs; checked again on every delivery).',
    request: {
      body: jsonBody(CreateEndpointBody, { all: { url: 'https://example.com/hooks/upscaler', events: ['job.succeeded', 'job.failed'] } }),
    },
    responses: {
      '201': jsonResponse(
        'The endpoint, with its signing `secret` (`whsec_…`): the only time it is shown.',
        WebhookEndpointCreatedSchema,
        'always',
      ),
      '400': errorResponse(
        400,
        ['invalid_request'],
        'always',
        'The body does not match the schema, the URL is not https, or it resolves to a non-public address (the message ' +
          'names the host, never the addresses it resolves to).',
      ),
      '409': errorResponse(
        409,
        ['webhook_endpoint_limit_reached'],
        'always',
        'The account already has as many enabled endpoints as UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT allows (10 by default). ' +
          'Deleted (disabled) endpoints do not count.',
      ),
      ...jsonBodyErrors('always'),
    },
    auth: { scope: 'webhooks:write' },
  }),
  listWebhookEndpoints: defineEndpoint({
    method: 'get',
    path: '/api/v1/webhook_endpoints',
    operationId: 'listWebhookEndpoints',
    description: "The account's webhook endpoints, newest first, with their subscribed events and status; secrets are not shown.",
    tags: ['Webhooks'],
    summary: 'List webhook endpoints',
    responses: {
      '200': jsonResponse(
        'Every endpoint of the account, disabled ones included (has_more is always false).',
        WebhookEndpointListSchema,
        'always',
      ),
    },
    auth: { scope: 'webhooks:read' },
  }),
  getWebhookEndpoint: defineEndpoint({
    method: 'get',
    path: '/api/v1/webhook_endpoints/{id}',
    operationId: 'getWebhookEndpoint',
    description: "One webhook endpoint of the caller's account; another account's is 404, as a missing one.",
    tags: ['Webhooks'],
    summary: 'Retrieve a webhook endpoint',
    request: { params: WebhookEndpointPathParams },
    responses: {
      '200': jsonResponse('The endpoint (without its secret).', WebhookEndpointSchema, 'always'),
      '404': notFound(),
    },
    auth: { scope: 'webhooks:read' },
  }),
  deleteWebhookEndpoint: defineEndpoint({
    method: 'delete',
    path: '/api/v1/webhook_endpoints/{id}',
    operationId: 'deleteWebhookEndpoint',
    tags: ['Webhooks'],
    summary: 'Disable a webhook endpoint',
    description: 'The endpoint stays listed with status disabled and receives no more deliveries; pending retries are abandoned.',
    request: { params: WebhookEndpointPathParams },
    responses: {
      '200': jsonResponse('The endpoint, status disabled.', WebhookEndpointSchema, 'always'),
      '404': notFound(),
    },
    auth: { scope: 'webhooks:write' },
  }),
  listWebhookDeliveries: defineEndpoint({
    method: 'get',
    path: '/api/v1/webhook_endpoints/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tags: ['Webhooks'],
    summary: 'The delivery log of an endpoint',
    description:
      'The latest `limit` delivery attempts to this endpoint, newest first by attempted_at (across deliveries; two attempts ' +
      'at the same instant: the higher attempt number first). has_more tells that older attempts exist; there is no cursor ' +
      '(next_cursor is always null).',
    request: { params: WebhookEndpointPathParams, query: DeliveriesQuery },
    responses: {
      '200': jsonResponse('Delivery attempts (next_cursor is always null).', DeliveryAttemptListSchema, 'always'),
      '400': errorResponse(
        400,
        ['invalid_request'],
        'always',
        'limit is not an integer from 1 to 100, or is given more than once or as a list (limit[]=…).',
      ),
      '404': notFound(),
    },
    auth: { scope: 'webhooks:read' },
  }),
  rotateWebhookEndpointSecret: defineEndpoint({
    method: 'post',
    path: '/api/v1/webhook_endpoints/{id}/rotate_secret',
    operationId: 'rotateWebhookEndpointSecret',
    tags: ['Webhooks'],
    summary: "Rotate an endpoint's signing secret",
    description:
      'A new `whsec_` secret, shown once in the answer. Until `overlap_seconds` have passed every delivery carries two signatures in ' +
      '`webhook-signature`, `v1,<new> v1,<previous>` (Standard Webhooks receivers accept a message when any matches), so receivers ' +
      'can switch at their own pace. A second rotation within the overlap keeps only the secret current until then. The body is optional.',
    request: {
      params: WebhookEndpointPathParams,
      body: { ...jsonBody(RotateSecretBody, { oneHour: { overlap_seconds: 3600 }, leaked: { overlap_seconds: 0 } }), required: false },
    },
    responses: {
      '200': jsonResponse('The endpoint with its new `secret`: the only time it is shown.', WebhookEndpointCreatedSchema, 'always'),
      '400': errorResponse(
        400,
        ['invalid_request'],
        'always',
        'overlap_seconds is not an integer from 0 to 604800, or the body is not JSON.',
      ),
      '404': notFound(),
      '409': errorResponse(409, ['webhook_endpoint_deleted'], 'always', deleted),
      ...jsonBodyErrors('always'),
    },
    auth: { scope: 'webhooks:write' },
  }),
  enableWebhookEndpoint: defineEndpoint({
    method: 'post',
    path: '/api/v1/webhook_endpoints/{id}/enable',
    operationId: 'enableWebhookEndpoint',
    tags: ['Webhooks'],
    summary: 'Enable an endpoint again (after a 410 disabled it)',
    description:
      'An endpoint disabled because a delivery answered 410 Gone (disabled_reason gone) gets deliveries again, for events from now on ' +
      '(send missed ones with redeliver). Enabling an enabled endpoint changes nothing (200).',
    request: { params: WebhookEndpointPathParams },
    responses: {
      '200': jsonResponse('The endpoint, status enabled.', WebhookEndpointSchema, 'always'),
      '404': notFound(),
      '409': errorResponse(
        409,
        ['webhook_endpoint_limit_reached', 'webhook_endpoint_deleted'],
        'always',
        'webhook_endpoint_limit_reached: the account already has as many enabled endpoints as ' +
          'UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT allows. ' +
          deleted,
      ),
    },
    auth: { scope: 'webhooks:write' },
  }),
  sendWebhookTestEvent: defineEndpoint({
    method: 'post',
    path: '/api/v1/webhook_endpoints/{id}/test',
    operationId: 'sendWebhookTestEvent',
    tags: ['Webhooks'],
    summary: 'Send a test event',
    description:
      'Schedules one delivery of a `webhook.test` event (see the webhook of that name) to the endpoint, whatever event types it ' +
      'subscribed to; signed and retried like any delivery, and listed in its delivery log (job_id null).',
    request: { params: WebhookEndpointPathParams },
    responses: {
      '202': jsonResponse('The delivery scheduled; its first attempt goes out at once.', WebhookDeliverySchema, 'always'),
      '404': notFound(),
      '409': errorResponse(409, ['webhook_endpoint_disabled', 'webhook_endpoint_deleted'], 'always', sendable),
    },
    auth: { scope: 'webhooks:write' },
  }),
  redeliverWebhook: defineEndpoint({
    method: 'post',
    path: '/api/v1/webhook_endpoints/{id}/deliveries/{delivery_id}/redeliver',
    operationId: 'redeliverWebhook',
    tags: ['Webhooks'],
    summary: 'Send a delivery again',
    description:
      'Any delivery of this endpoint, whatever its outcome: a new delivery with the same body and event type, sent now and retried ' +
      'as usual. Its `webhook-id` header is the original message id (Standard Webhooks: a message sent again keeps its id, so ' +
      'receivers can drop what they already processed); each attempt is signed anew with the current time and secrets.',
    request: { params: WebhookDeliveryPathParams },
    responses: {
      '202': jsonResponse('The new delivery (redelivery_of names the one re-sent).', WebhookDeliverySchema, 'always'),
      '404': notFound('No such webhook endpoint in this account, or no delivery with that id to it.'),
      '409': errorResponse(409, ['webhook_endpoint_disabled', 'webhook_endpoint_deleted'], 'always', sendable),
    },
    auth: { scope: 'webhooks:write' },
  }),
};

/** The endpoints' paths and the deliveries themselves (OpenAPI 3.1 `webhooks`). */
export function registerWebhookRoutes(registry: OpenAPIRegistry): void {
  registerEndpoints(registry, Object.values(WEBHOOK_ENDPOINT_ENDPOINTS));
  for (const type of WEBHOOK_EVENT_TYPES) registerDelivery(registry, type);
  registerTestDelivery(registry);
}

const STATUS_OF_EVENT: Record<WebhookEventType, JobStatus> = {
  'job.succeeded': 'succeeded',
  'job.failed': 'failed',
  'job.cancelled': 'cancelled',
};

/** What a receiver gets: the Standard Webhooks headers of every delivery attempt. */
const SignatureHeaders = z.object({
  'webhook-id': param(
    z.string(),
    'The message id (`dlv_…`, the delivery id): the same on every retry of one delivery and on a re-delivery of it, so receivers ' +
      'can drop duplicates.',
  ),
  'webhook-timestamp': param(
    z.string().regex(/^[0-9]+$/),
    'Unix time in seconds when this attempt was signed. Reject deliveries more than 5 minutes from now.',
  ),
  'webhook-signature': param(
    z
      .string()
      .regex(/^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$/)
      .openapi({ pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' }),
    'Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed by the ' +
      "base64-decoded part of the endpoint secret after `whsec_`. Space-separated when several: during a secret rotation's " +
      'overlap one made with the new secret, then one with the previous; accept the message when any matches.',
  ),
});

/** OpenAPI 3.1 `webhooks`: what the service POSTs to a registered endpoint when a job finishes. */
function registerDelivery(registry: OpenAPIRegistry, type: WebhookEventType): void {
  registry.registerWebhook({
    method: 'post',
    path: type,
    operationId: `webhook_${type.replace('.', '_')}`,
    tags: ['Webhooks'],
    summary: `Sent when a job becomes ${STATUS_OF_EVENT[type]}`,
    description:
      'An HTTPS POST, signed per Standard Webhooks, at most one delivery per (endpoint, job, event) plus the re-deliveries the ' +
      'account asks for (same body and webhook-id). Redirects are not followed. ' +
      'A 2xx answer (within the delivery timeout, 10 s by default) acknowledges it; anything else is retried with exponential ' +
      'backoff and jitter for about three days; 410 Gone disables the endpoint.',
    request: {
      headers: SignatureHeaders,
      body: {
        required: true,
        content: {
          'application/json': {
            schema: {
              allOf: [{ $ref: '#/components/schemas/WebhookPayload' }],
              properties: { type: { const: type }, data: { properties: { status: { const: STATUS_OF_EVENT[type] } } } },
            },
          },
        },
      },
    },
    responses: {
      '2XX': { description: 'Delivered: no further attempt.' },
      '410': { description: 'Gone: the endpoint is disabled and gets no further deliveries.' },
      default: { description: 'Any other answer, a redirect, or no answer: the delivery is retried.' },
    },
  });
}

/** OpenAPI 3.1 `webhooks`: the test event (POST /webhook_endpoints/{id}/test). */
function registerTestDelivery(registry: OpenAPIRegistry): void {
  registry.register('WebhookTestPayload', WebhookTestPayloadSchema);
  registry.registerWebhook({
    method: 'post',
    path: WEBHOOK_TEST_EVENT_TYPE,
    operationId: 'webhook_webhook_test',
    tags: ['Webhooks'],
    summary: 'Sent when asked for by POST /webhook_endpoints/{id}/test',
    description: 'A test (ping) event: signed, answered and retried exactly like the job events.',
    request: {
      headers: SignatureHeaders,
      body: { required: true, content: { 'application/json': { schema: WebhookTestPayloadSchema } } },
    },
    responses: {
      '2XX': { description: 'Delivered: no further attempt.' },
      '410': { description: 'Gone: the endpoint is disabled and gets no further deliveries.' },
      default: { description: 'Any other answer, a redirect, or no answer: the delivery is retried.' },
    },
  });
}
