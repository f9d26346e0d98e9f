import {
  ERROR_CODES,
  JOB_FAILURE_CODES,
  JOB_STATUSES,
  MAX_UPLOAD_BYTES,
  OUTPUT_FORMATS,
  QUALITY_TIERS,
  SCOPES,
  SIGNED_URL_TTL_SECONDS,
  TARGETS,
  WEBHOOK_EVENT_TYPES,
} from '@upscaler/contracts';
import { ref, type Json } from './openapi.common';

/**
 * components.schemas: one schema per view of libs/contracts/src/views.ts. `required` lists every
 * field the view always sends; nullable fields are `[type, 'null']`. No schema forbids extra
 * properties: spec 9, rule 2 lets v1 add fields, so clients must tolerate them.
 */

const id = (prefix: string, what: string): Json => ({
  type: 'string',
  pattern: `^${prefix}_[0-9a-f]{32}$`,
  description: `${what} id: \`${prefix}_\` and 32 hex digits of a UUIDv7 (time-ordered).`,
});
const timestamp = (description: string): Json => ({ type: 'string', format: 'date-time', description });
const nullableTimestamp = (description: string): Json => ({ type: ['string', 'null'], format: 'date-time', description });
const constant = (value: string): Json => ({ type: 'string', const: value });
const nonNegative = (description: string): Json => ({ type: 'integer', minimum: 0, description });

const enums = {
  JobStatus: {
    type: 'string',
    enum: [...JOB_STATUSES],
    description:
      'pending: a lost processing attempt waiting (with backoff) to re-enter the queue; queued; processing; ' +
      'and the final states succeeded, failed, cancelled. Transitions: docs/job-states.md.',
  },
  Target: {
    type: 'string',
    enum: [...TARGETS],
    description: 'Output size as a multiplier of the original dimensions: 2k = 2x (3 credits), 3k = 3x (6 credits), 4k = 4x (9 credits).',
  },
  OutputFormat: {
    type: 'string',
    enum: [...OUTPUT_FORMATS],
    description: 'png (lossless, keeps transparency), jpeg (no transparency), webp, avif (smallest, slower to encode).',
  },
  QualityTier: {
    type: 'string',
    enum: [...QUALITY_TIERS],
    description:
      'Which networks the engine runs. Fidelity tiers, each sharper than the one below on every benchmark set: fast (one pass of a small network), balanced (one pass of a larger network) or best (the larger network self-ensembled, 17-47x the time of fast). Additive value sharp: Real-ESRGAN x4plus, a generative network that synthesises texture and hard edges, about 250-330x the time of fast and 4-25x that of best per output megapixel; it takes inputs of at most 100,000 pixels at every target (larger: 400 image_too_large_to_upscale). The price is the same for every tier. Networks, quality, timings and the default: docs/engine.md.',
  },
  Scope: { type: 'string', enum: [...SCOPES] },
  WebhookEventType: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
};

const jobFields: Record<string, Json> = {
  id: id('job', 'Job'),
  object: constant('job'),
  status: ref('JobStatus'),
  target: {
    ...ref('Target'),
    description: 'The target actually used: the requested one, or the largest the engine accepts for this image (spec 1).',
  },
  filename: {
    type: ['string', 'null'],
    maxLength: 255,
    description: 'The filename given, the uploaded file name, or the last segment of image_url.',
  },
  credits: {
    type: 'integer',
    minimum: 0,
    description: 'Credits reserved (unfinished), charged (succeeded) or refunded (failed, cancelled) for this job.',
  },
  error: {
    type: ['object', 'null'],
    description: 'Set when status is failed; otherwise null.',
    required: ['code', 'message'],
    properties: {
      code: { type: 'string', enum: [...JOB_FAILURE_CODES] },
      message: { type: 'string' },
    },
  },
  source: {
    type: ['object', 'null'],
    description: 'Size and detected content type of the input image.',
    required: ['bytes', 'content_type'],
    properties: {
      bytes: { type: 'integer', minimum: 1, maximum: MAX_UPLOAD_BYTES },
      content_type: { type: 'string', enum: ['image/jpeg', 'image/png', 'image/webp', 'image/avif'] },
    },
  },
  result: {
    type: ['object', 'null'],
    description: 'Set once succeeded; otherwise null.',
    required: ['bytes', 'content_type', 'url'],
    properties: {
      bytes: { type: 'integer', minimum: 1 },
      content_type: { type: 'string', enum: ['image/png', 'image/jpeg', 'image/webp', 'image/avif'] },
      url: { type: 'string', pattern: '^/api/v1/jobs/job_[0-9a-f]{32}/result$', description: 'The result endpoint of this job (a path).' },
    },
  },
  created_at: timestamp('When the job was accepted (UTC).'),
  finished_at: nullableTimestamp('When the job reached a final state; null before.'),
  duration_ms: {
    type: ['integer', 'null'],
    minimum: 0,
    description: 'Wall-clock processing time in ms, once finished (null when it never ran).',
  },
  format: { ...ref('OutputFormat'), description: 'Additive field: the requested output format.' },
  quality: { ...ref('QualityTier'), description: 'Additive field: the quality tier used.' },
  requested_target: {
    ...ref('Target'),
    description: 'Additive field: the target the request asked for (target may be smaller, spec 1 fallback).',
  },
};

function jobView(description: string, fields: string[]): Json {
  return {
    type: 'object',
    description,
    required: fields,
    properties: Object.fromEntries(fields.map((f) => [f, jobFields[f]])),
  };
}

const listOf = (item: string, description: string): Json => ({
  type: 'object',
  description,
  required: ['object', 'data', 'has_more', 'next_cursor'],
  properties: {
    object: constant('list'),
    data: { type: 'array', items: ref(item) },
    has_more: { type: 'boolean', description: 'True while more items exist after this page.' },
    next_cursor: { type: ['string', 'null'], description: 'Pass as starting_after to get the next page; null when has_more is false.' },
  },
});

const apiKey: Json = {
  type: 'object',
  description: 'An API key. The secret itself is shown only once, in the creation answer (ApiKeyCreated).',
  required: ['id', 'object', 'name', 'scopes', 'prefix', 'rate_limit_per_minute', 'created_at', 'revoked_at'],
  properties: {
    id: id('key', 'API key'),
    object: constant('api_key'),
    name: { type: ['string', 'null'], maxLength: 200 },
    scopes: { type: 'array', items: ref('Scope'), uniqueItems: true },
    prefix: { type: 'string', pattern: '^usk_[A-Za-z0-9_-]{8}$', description: 'The first 12 characters of the key, to recognise it.' },
    rate_limit_per_minute: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 10000,
      description: "This key's own rate; null means the default (UPSCALE_RATE_LIMIT_PER_MINUTE, 60).",
    },
    created_at: timestamp('When the key was created.'),
    revoked_at: nullableTimestamp('When the key was revoked; null while usable.'),
  },
};

const webhookEndpoint: Json = {
  type: 'object',
  description: 'A registered webhook endpoint. The signing secret is shown only once (WebhookEndpointCreated).',
  required: ['id', 'object', 'url', 'events', 'description', 'status', 'created_at'],
  properties: {
    id: id('we', 'Webhook endpoint'),
    object: constant('webhook_endpoint'),
    url: { type: 'string', format: 'uri', pattern: '^https://', maxLength: 2048 },
    events: { type: 'array', items: ref('WebhookEventType'), minItems: 1, uniqueItems: true },
    description: { type: ['string', 'null'], maxLength: 500 },
    status: {
      type: 'string',
      enum: ['enabled', 'disabled'],
      description: 'disabled after DELETE, or after the endpoint answered 410 Gone. A disabled endpoint gets no deliveries.',
    },
    created_at: timestamp('When the endpoint was registered.'),
  },
};

export const schemas: Record<string, Json> = {
  ...enums,
  Job: jobView('A job, retrieve view: every field (spec 2, Job table) plus the additive fields format, quality, requested_target.', [
    'id',
    'object',
    'status',
    'target',
    'filename',
    'credits',
    'error',
    'source',
    'result',
    'created_at',
    'finished_at',
    'duration_ms',
    'format',
    'quality',
    'requested_target',
  ]),
  JobCreate: jobView('A job, create view (202 answer of POST /upscale).', [
    'id',
    'object',
    'status',
    'target',
    'filename',
    'credits',
    'source',
    'created_at',
  ]),
  JobListItem: jobView('A job, list item view.', ['id', 'object', 'status', 'target', 'credits', 'created_at']),
  JobCancel: jobView('A job, cancel view (200 answer of DELETE /jobs/{id}).', [
    'id',
    'object',
    'status',
    'target',
    'credits',
    'created_at',
    'finished_at',
  ]),
  JobList: listOf('JobListItem', "A page of the caller's jobs, newest first."),
  ResultLink: {
    type: 'object',
    description: 'A signed download link (GET /jobs/{id}/result?redirect=false).',
    required: ['url', 'expires_in', 'content_type', 'bytes'],
    properties: {
      url: { type: 'string', format: 'uri', description: 'Absolute signed URL; needs no API key. Valid for expires_in seconds.' },
      expires_in: { type: 'integer', const: SIGNED_URL_TTL_SECONDS, description: 'Seconds of validity.' },
      content_type: { type: 'string' },
      bytes: { type: 'integer', minimum: 1 },
    },
  },
  Account: {
    type: 'object',
    description: 'An account and its credits: granted = balance + reserved + charged.',
    required: ['id', 'object', 'name', 'balance', 'reserved', 'charged', 'created_at'],
    properties: {
      id: id('acct', 'Account'),
      object: constant('account'),
      name: { type: 'string' },
      balance: nonNegative('Credits available for new jobs.'),
      reserved: nonNegative('Credits held by unfinished jobs.'),
      charged: nonNegative('Credits spent on succeeded jobs.'),
      created_at: timestamp('When the account was opened.'),
    },
  },
  AdminAccount: {
    description: "The operator's view of an account: the account object plus its settings.",
    allOf: [ref('Account')],
    required: ['max_concurrent_jobs'],
    properties: {
      max_concurrent_jobs: {
        type: ['integer', 'null'],
        minimum: 1,
        maximum: 1000,
        description:
          "At most this many of the account's jobs run at once, across all processors; null: the service default (UPSCALE_ACCOUNT_MAX_CONCURRENT_JOBS, 0 = no limit). Queued jobs beyond it wait; accounts are served in turn either way.",
      },
    },
  },
  ApiKey: apiKey,
  ApiKeyCreated: {
    description: 'The creation answer: the API key object plus the key in full. This is the only time it is shown.',
    allOf: [ref('ApiKey')],
    required: ['key'],
    properties: { key: { type: 'string', pattern: '^usk_[A-Za-z0-9_-]{32}$' } },
  },
  ApiKeyList: listOf('ApiKey', 'Every API key of the account (revoked ones included); never paged.'),
  WebhookEndpoint: webhookEndpoint,
  WebhookEndpointCreated: {
    description: 'The creation answer: the endpoint plus its signing secret. This is the only time it is shown.',
    allOf: [ref('WebhookEndpoint')],
    required: ['secret'],
    properties: { secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$' } },
  },
  WebhookEndpointList: listOf('WebhookEndpoint', 'Every webhook endpoint of the account (disabled ones included); never paged.'),
  DeliveryAttempt: {
    type: 'object',
    description: 'One attempt to deliver one event to one endpoint.',
    required: [
      'id',
      'object',
      'delivery_id',
      'event_type',
      'job_id',
      'attempt',
      'status_code',
      'error',
      'outcome',
      'attempted_at',
      'next_attempt_at',
    ],
    properties: {
      id: { type: 'string', pattern: '^dlv_[0-9a-f]{32}_[0-9]+$', description: 'The delivery id and the attempt number.' },
      object: constant('webhook_delivery_attempt'),
      delivery_id: {
        type: 'string',
        pattern: '^dlv_[0-9a-f]{32}$',
        description: 'The delivery; also the webhook-id header of every attempt of it.',
      },
      event_type: ref('WebhookEventType'),
      job_id: id('job', 'Job'),
      attempt: { type: 'integer', minimum: 1 },
      status_code: {
        type: ['integer', 'null'],
        description: "The endpoint's HTTP status; null when no answer came (DNS, connection, TLS, timeout, refused address).",
      },
      error: { type: ['string', 'null'], description: 'Why the attempt failed; null when it succeeded (2xx).' },
      outcome: {
        type: 'string',
        enum: ['succeeded', 'retrying', 'abandoned', 'endpoint_gone'],
        description:
          'succeeded: 2xx. retrying: another attempt is scheduled at next_attempt_at. abandoned: the retry schedule is used up or the endpoint was disabled. endpoint_gone: the endpoint answered 410 and was disabled.',
      },
      attempted_at: timestamp('When the attempt was made.'),
      next_attempt_at: nullableTimestamp('When the next attempt is due (outcome retrying); otherwise null.'),
    },
  },
  DeliveryAttemptList: listOf('DeliveryAttempt', 'Delivery attempts of one endpoint (see the operation for their order).'),
  Error: {
    type: 'object',
    description: 'Every error answer (spec 7). Branch on code, never on message.',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: Object.keys(ERROR_CODES) },
          message: { type: 'string', description: 'Human-readable; may change.' },
        },
      },
    },
  },
  WebhookPayload: {
    type: 'object',
    description: 'The body of every webhook delivery (docs/design.md §6).',
    required: ['type', 'timestamp', 'data'],
    properties: {
      type: ref('WebhookEventType'),
      timestamp: timestamp('When the job reached its final state (the time of the event).'),
      data: { ...ref('Job'), description: 'The job, retrieve view, as of that event.' },
    },
  },
  HealthLive: {
    type: 'object',
    required: ['status'],
    properties: { status: constant('ok') },
  },
  HealthReady: {
    type: 'object',
    description: 'The @nestjs/terminus health-check result: one entry per dependency (database, storage, and kafka in distributed mode).',
    required: ['status', 'details'],
    properties: {
      status: { type: 'string', enum: ['ok', 'error', 'shutting_down'] },
      info: { type: 'object', additionalProperties: ref('HealthIndicator') },
      error: { type: 'object', additionalProperties: ref('HealthIndicator') },
      details: { type: 'object', additionalProperties: ref('HealthIndicator') },
    },
  },
  HealthIndicator: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['up', 'down'] }, message: { type: 'string' } },
  },
};
