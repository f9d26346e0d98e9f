import { WEBHOOK_EVENT_TYPES, type JobStatus, type WebhookEventType } from '@upscaler/contracts';
import { apiKeySecurity, errorResponse, jsonBodyErrors, jsonResponse, keyedErrors, paramRef, ref, type Json } from './openapi.common';

/** docs/design.md §6: webhook endpoint registration (webhook-endpoints.controller.ts) and the deliveries themselves. */

export const webhookEndpointPaths: Record<string, Json> = {
  '/api/v1/webhook_endpoints': {
    post: {
      operationId: 'createWebhookEndpoint',
      tags: ['Webhooks'],
      summary: 'Register a webhook endpoint',
      description:
        'The URL must be HTTPS, without credentials, and resolve only to public addresses (the same SSRF guard as ' +
        'image URLs; checked again on every delivery).',
      security: apiKeySecurity('webhooks:write'),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['url'],
              properties: {
                url: { type: 'string', format: 'uri', pattern: '^https://', minLength: 1, maxLength: 2048 },
                events: {
                  type: 'array',
                  minItems: 1,
                  items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
                  description: 'Event types to receive. Omitted: all of them.',
                },
                description: { type: 'string', maxLength: 500 },
              },
            },
            examples: { all: { value: { url: 'https://example.com/hooks/upscaler', events: ['job.succeeded', 'job.failed'] } } },
          },
        },
      },
      responses: {
        '201': jsonResponse(
          'The endpoint, with its signing `secret` (`whsec_…`): the only time it is shown.',
          ref('WebhookEndpointCreated'),
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
        ...keyedErrors({ scoped: true }),
      },
    },
    get: {
      operationId: 'listWebhookEndpoints',
      tags: ['Webhooks'],
      summary: 'List webhook endpoints',
      security: apiKeySecurity('webhooks:read'),
      responses: {
        '200': jsonResponse(
          'Every endpoint of the account, disabled ones included (has_more is always false).',
          ref('WebhookEndpointList'),
          'always',
        ),
        ...keyedErrors({ scoped: true }),
      },
    },
  },
  '/api/v1/webhook_endpoints/{id}': {
    parameters: [paramRef('WebhookEndpointId')],
    get: {
      operationId: 'getWebhookEndpoint',
      tags: ['Webhooks'],
      summary: 'Retrieve a webhook endpoint',
      security: apiKeySecurity('webhooks:read'),
      responses: {
        '200': jsonResponse('The endpoint (without its secret).', ref('WebhookEndpoint'), 'always'),
        '404': errorResponse(404, ['not_found'], 'always', 'No webhook endpoint with that id in this account.'),
        ...keyedErrors({ scoped: true }),
      },
    },
    delete: {
      operationId: 'deleteWebhookEndpoint',
      tags: ['Webhooks'],
      summary: 'Disable a webhook endpoint',
      description: 'The endpoint stays listed with status disabled and receives no more deliveries; pending retries are abandoned.',
      security: apiKeySecurity('webhooks:write'),
      responses: {
        '200': jsonResponse('The endpoint, status disabled.', ref('WebhookEndpoint'), 'always'),
        '404': errorResponse(404, ['not_found'], 'always', 'No webhook endpoint with that id in this account.'),
        ...keyedErrors({ scoped: true }),
      },
    },
  },
  '/api/v1/webhook_endpoints/{id}/deliveries': {
    parameters: [paramRef('WebhookEndpointId')],
    get: {
      operationId: 'listWebhookDeliveries',
      tags: ['Webhooks'],
      summary: 'The delivery log of an endpoint',
      description:
        'Every attempt of up to `limit` deliveries to this endpoint, the attempts of one delivery newest first. Deliveries come in ' +
        'descending delivery-id order, which is not time order (a delivery id is derived from endpoint, job and event): sort by ' +
        'attempted_at. has_more tells that more deliveries exist; there is no cursor (next_cursor is always null).',
      security: apiKeySecurity('webhooks:read'),
      parameters: [
        {
          name: 'limit',
          in: 'query',
          description: 'How many deliveries (each with all its attempts) to return.',
          schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
        },
      ],
      responses: {
        '200': jsonResponse('Delivery attempts (next_cursor is always null).', ref('DeliveryAttemptList'), 'always'),
        '400': errorResponse(
          400,
          ['invalid_request'],
          'always',
          'limit is not an integer from 1 to 100, or is given more than once or as a list (limit[]=…).',
        ),
        '404': errorResponse(404, ['not_found'], 'always', 'No webhook endpoint with that id in this account.'),
        ...keyedErrors({ scoped: true }),
      },
    },
  },
};

const STATUS_OF_EVENT: Record<WebhookEventType, JobStatus> = {
  'job.succeeded': 'succeeded',
  'job.failed': 'failed',
  'job.cancelled': 'cancelled',
};

const signatureHeaders: Json[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The delivery id (`dlv_…`): the same on every retry of one delivery, so receivers can drop duplicates.',
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix time in seconds when this attempt was signed. Reject deliveries more than 5 minutes from now.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed by the ' +
      'base64-decoded part of the endpoint secret after `whsec_`. Space-separated when several.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
  },
];

/** OpenAPI 3.1 `webhooks`: what the service POSTs to a registered endpoint when a job finishes. */
export const webhookDeliveries: Record<string, Json> = Object.fromEntries(
  WEBHOOK_EVENT_TYPES.map((type) => [
    type,
    {
      post: {
        operationId: `webhook_${type.replace('.', '_')}`,
        tags: ['Webhooks'],
        summary: `Sent when a job becomes ${STATUS_OF_EVENT[type]}`,
        description:
          'An HTTPS POST, signed per Standard Webhooks, at most one delivery per (endpoint, job, event). Redirects are not followed. ' +
          'A 2xx answer (within the delivery timeout, 10 s by default) acknowledges it; anything else is retried with exponential ' +
          'backoff and jitter for about three days; 410 Gone disables the endpoint.',
        parameters: signatureHeaders,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                allOf: [ref('WebhookPayload')],
                properties: {
                  type: { const: type },
                  data: { properties: { status: { const: STATUS_OF_EVENT[type] } } },
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
      },
    },
  ]),
);
