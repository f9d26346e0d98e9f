import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { MAX_UPLOAD_BYTES, SIGNED_URL_TTL_SECONDS } from '@upscaler/contracts';
import {
  DEPENDENCY_AWAY,
  errorResponse,
  headersFor,
  jsonBodyErrors,
  jsonResponse,
  defineEndpoint,
  registerEndpoints,
} from '@upscaler/http-api';

/** Preference-Applied and Vary, on the answers a `Prefer: wait` may shape. */
const WAIT_HEADERS = {
  'Preference-Applied': {
    description:
      'wait=N when the request asked Prefer: wait=N (N as honoured, at most 60): the server waited for a final state up to N seconds.',
    required: false,
    schema: { type: 'string', pattern: '^wait=\\d+$' },
  },
  Vary: { description: 'Prefer: the answer depends on the Prefer header.', required: true, schema: { type: 'string' } },
};
const ETAG_HEADER = {
  description: "The view's weak entity tag: send it back in If-None-Match (with Prefer: wait=N) to wait for the next change.",
  required: true,
  schema: { type: 'string', pattern: '^W/".+"$' },
};
import {
  JobCancelSchema,
  GetJobHeaders,
  JobCreateSchema,
  JobListSchema,
  JobPathParams,
  JobSchema,
  ListJobsQuery,
  ResultLinkSchema,
  ResultQuery,
  SubmitHeaders,
  SubmitJsonBody,
  SubmitMultipartBody,
} from './jobs.schemas';

/** The result's answers are never cached: each holds a fresh signed link. */
const noStore = {
  'Cache-Control': { description: 'Always `no-store`: every call returns a fresh link.', schema: { type: 'string', const: 'no-store' } },
};

/** Spec 4: the job endpoints (jobs.controller.ts), each declared once. */
export const JOB_ENDPOINTS = {
  createJob: defineEndpoint({
    method: 'post',
    path: '/api/v1/upscale',
    operationId: 'createJob',
    tags: ['Jobs'],
    summary: 'Create an upscaling job',
    description:
      'Answers at once with a queued job; processing happens in the background (spec 4.1). The image is ' +
      'a multipart file, or an HTTPS URL in a JSON body that the service fetches (SSRF-guarded, at most ' +
      `${MAX_UPLOAD_BYTES} bytes, 20 s). The format is detected from the bytes. Credits of the target actually used ` +
      'are reserved; when the engine refuses the requested target for this image, the largest accepted one is used.\n\n' +
      'Output by pixel size (additive): width and/or height (and fit) instead of target. The service runs and charges the ' +
      'smallest target that reaches the size and resizes the result to it exactly; a size beyond 4x answers 400 ' +
      'size_out_of_reach, one whose target exceeds the output pixel limit 400 image_too_large_to_upscale (no fallback: the ' +
      'size would not be met), width or height with target 400 invalid_size.\n\n' +
      'Idempotency-Key: a repeat of an earlier key by the same account with the same parameters and image answers ' +
      '200 with the original job (full view) and creates or charges nothing; with different parameters it answers ' +
      '400 idempotency_key_reused. Keys are kept indefinitely (at least 24 h). Two concurrent requests with one key create one job.\n\n' +
      'Prefer: wait=N (at most 60): the answer waits until the job is final or N seconds have passed. A job final by then is ' +
      'answered 200 with its retrieve view (result, error, progress); otherwise as without the header (202 with the create view, or 200 ' +
      'for a replay). Preference-Applied: wait=N says the wait was honoured.',
    request: {
      headers: SubmitHeaders,
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: SubmitMultipartBody,
            encoding: { image: { contentType: 'image/jpeg, image/png, image/webp, image/avif, application/octet-stream' } },
          },
          'application/json': {
            schema: SubmitJsonBody,
            examples: { url: { value: { image_url: 'https://example.com/cat.jpg', target: '4k', format: 'webp' } } },
          },
        },
      },
    },
    responses: {
      '200': jsonResponse(
        'Idempotent replay: the original job (retrieve view); nothing was created or charged. Or, with Prefer: wait, the new job already final (retrieve view).',
        JobSchema,
        'always',
        WAIT_HEADERS,
      ),
      '202': jsonResponse('Job accepted (create view), status queued.', JobCreateSchema, 'always', WAIT_HEADERS),
      '400': errorResponse(
        400,
        [
          'invalid_request',
          'invalid_target',
          'invalid_format',
          'invalid_image_url',
          'image_fetch_failed',
          'invalid_image',
          'image_dimensions_too_large',
          'image_too_large_to_upscale',
          'animated_image',
          'idempotency_key_reused',
          'invalid_size',
          'size_out_of_reach',
        ],
        'always',
        "Invalid request. invalid_request also covers: a body that is neither multipart/form-data nor application/json, a multipart body without the image file, a bad quality or filename, a malformed Idempotency-Key, and unparsable JSON (the last one is answered before the key is checked and reports the client address's window).",
      ),
      '402': errorResponse(402, ['insufficient_credits'], 'always'),
      '409': errorResponse(
        409,
        ['idempotency_in_progress'],
        'always',
        'Another request with this Idempotency-Key is still being processed.',
      ),
      ...jsonBodyErrors('always', {
        extra415: ['unsupported_media_type'],
        note413: 'The image (uploaded or fetched) is over 10 MiB, or a JSON body is over 100 kB; the message names which.',
      }),
      '503': errorResponse(503, ['billing_unavailable', 'service_unavailable'], 'always', DEPENDENCY_AWAY),
    },
    auth: { scope: 'jobs:write' },
  }),
  listJobs: defineEndpoint({
    method: 'get',
    path: '/api/v1/jobs',
    operationId: 'listJobs',
    tags: ['Jobs'],
    summary: 'List jobs, newest first',
    description:
      'Cursor pagination by job id (ids are time-ordered): a full walk neither skips nor repeats jobs while new ones arrive (spec 4.3).',
    request: { query: ListJobsQuery },
    responses: {
      '200': jsonResponse('A page of jobs (list item view).', JobListSchema, 'always'),
      '400': errorResponse(
        400,
        ['invalid_request', 'invalid_cursor'],
        'always',
        'limit or status out of range, a parameter given more than once or as a list (status[]=…), or starting_after not a job of this account.',
      ),
    },
    auth: { scope: 'jobs:read' },
  }),
  getJob: defineEndpoint({
    method: 'get',
    path: '/api/v1/jobs/{id}',
    operationId: 'getJob',
    tags: ['Jobs'],
    summary: 'Retrieve a job',
    description:
      'Poll every one to two seconds until the status is final, or ask the answer to wait for it with Prefer: wait=N ' +
      '(at most 60 s: the answer comes as soon as the job is final, or after N seconds with its state then), or use webhooks. ' +
      'progress (0 to 1) and started_at show how far a running job is. To follow every change (a progress bar), send ' +
      'Prefer: wait=N with If-None-Match: <the ETag of the view you have>: the answer comes as soon as the view differs, ' +
      'or as 304 after N seconds without a change.',
    request: { params: JobPathParams, headers: GetJobHeaders },
    responses: {
      '200': jsonResponse('The job (retrieve view).', JobSchema, 'always', { ...WAIT_HEADERS, ETag: ETAG_HEADER }),
      '304': {
        description: 'If-None-Match named the view as it is: nothing changed (after the wait, with Prefer: wait=N). No body.',
        headers: headersFor('always', { ...WAIT_HEADERS, ETag: ETAG_HEADER }),
      },
      '404': errorResponse(
        404,
        ['job_not_found'],
        'always',
        "No job with that id in this account (another account's job is indistinguishable from a missing one).",
      ),
    },
    auth: { scope: 'jobs:read' },
  }),
  cancelJob: defineEndpoint({
    method: 'delete',
    path: '/api/v1/jobs/{id}',
    operationId: 'cancelJob',
    tags: ['Jobs'],
    summary: 'Cancel a job',
    description:
      'Cancels a job that has not reached a final state and refunds its credits (spec 4.5). When finishing and cancelling race, the finish wins and the cancel gets 409.',
    request: { params: JobPathParams },
    responses: {
      '200': jsonResponse('The cancelled job (cancel view).', JobCancelSchema, 'always'),
      '404': errorResponse(404, ['job_not_found'], 'always'),
      '409': errorResponse(409, ['conflict'], 'always', 'The job already reached a final state (succeeded, failed or cancelled).'),
    },
    auth: { scope: 'jobs:write' },
  }),
  downloadResult: defineEndpoint({
    method: 'get',
    path: '/api/v1/jobs/{id}/result',
    operationId: 'downloadResult',
    tags: ['Jobs'],
    summary: 'Download the result (or the source)',
    description:
      `Redirects (302) to a signed URL valid for ${SIGNED_URL_TTL_SECONDS} s; follow it to get the bytes. Every call signs a ` +
      'fresh link. asset=result needs a succeeded job; asset=source works in any state. Files are kept until the ' +
      "job's files_expire_at (the service's retention, docs/operations.md); from then on both assets answer 410 files_expired.",
    request: { params: JobPathParams, query: ResultQuery },
    responses: {
      '302': {
        description: 'Redirect to the signed URL (no body).',
        headers: headersFor('always', {
          Location: { description: 'The signed URL.', required: true, schema: { type: 'string', format: 'uri' } },
          ...noStore,
        }),
      },
      '200': jsonResponse('The signed link (redirect=false).', ResultLinkSchema, 'always', noStore),
      '400': errorResponse(
        400,
        ['invalid_request'],
        'always',
        'redirect is not a boolean, asset is not result or source, or either is given more than once or as a list.',
      ),
      '404': errorResponse(404, ['job_not_found'], 'always'),
      '409': errorResponse(409, ['result_not_ready'], 'always', 'asset=result and the job has not succeeded (yet, or ever).'),
      '410': errorResponse(410, ['files_expired'], 'always', "The job's files_expire_at has passed: its source and result were deleted."),
    },
    auth: { scope: 'jobs:read' },
  }),
};

export function registerJobRoutes(registry: OpenAPIRegistry): void {
  registerEndpoints(registry, Object.values(JOB_ENDPOINTS));
}
