import {
  CONTENT_HINTS,
  DomainError,
  JOB_FAILURE_CODES,
  JOB_STATUSES,
  MAX_UPLOAD_BYTES,
  MAX_REQUESTED_SIDE,
  OUTPUT_FORMATS,
  QUALITY_TIERS,
  SIZE_FITS,
  SIGNED_URL_TTL_SECONDS,
  TARGETS,
  THUMBNAIL_LINK_WINDOW_SECONDS,
  THUMBNAIL_SIDE,
  type JobCancelView,
  type JobCreateView,
  type JobListItemView,
  type JobView,
  type ResultLinkView,
} from '@upscaler/contracts';
import { id, idParam, idPattern, listOf, nullableTimestamp, param, timestamp, z } from '@upscaler/http-api';

/**
 * The job endpoints' contract (spec 4): the request schemas that validate POST /upscale, GET /jobs and
 * GET /jobs/{id}/result, and the view schemas of every job answer. jobs.routes.ts puts them in the
 * OpenAPI document.
 */

// ---------------------------------------------------------------------------------------------
// Enumerations

export const JobStatusSchema = z.enum(JOB_STATUSES).openapi('JobStatus', {
  description:
    'pending: a lost processing attempt waiting (with backoff) to re-enter the queue; queued; processing; ' +
    'and the final states succeeded, failed, cancelled. Transitions: docs/job-states.md.',
});

export const TargetSchema = z.enum(TARGETS).openapi('Target', {
  description: 'Output size as a multiplier of the original dimensions: 2k = 2x (3 credits), 3k = 3x (6 credits), 4k = 4x (9 credits).',
});

export const OutputFormatSchema = z.enum(OUTPUT_FORMATS).openapi('OutputFormat', {
  description: 'png (lossless, keeps transparency), jpeg (no transparency), webp, avif (smallest, slower to encode).',
});

export const QualityTierSchema = z.enum(QUALITY_TIERS).openapi('QualityTier', {
  description:
    'Which networks the engine runs. Fidelity tiers, each sharper than the one below on every benchmark set: fast (one pass of a small network), balanced (a larger network: one pass; at 2k and 4k two int8 passes on CPUs with VNNI, costing less than the one float32 pass they replaced) or best (the larger network self-ensembled, 12-50x the time of fast: int8 on CPUs with VNNI, where at 2k half of its passes are by a still larger network, float32 elsewhere). Additive value sharp: Real-ESRGAN x4plus, a generative network that synthesises texture and hard edges, about 130-155x the time of fast and 4-7x that of best per output megapixel (float32 engine); it takes inputs of at most 100,000 pixels at every target (larger: 400 image_too_large_to_upscale). The price is the same for every tier. Networks, quality, timings and the default: docs/engine.md.',
});

export const ContentHintSchema = z.enum(CONTENT_HINTS).openapi('ContentHint', {
  description:
    'What the image shows. photo (the default): camera pictures. illustration: drawings, line art, flat-colour art, screenshots and text; it runs an illustration network (Real-ESRGAN x4plus anime) where one measured better, which is the sharp tier, and elsewhere the same network as photo. Measurements and the mapping: docs/engine.md.',
});

export const SizeFitSchema = z.enum(SIZE_FITS).openapi('SizeFit', {
  description:
    'How a result asked for by both width and height fits them. within: the largest size inside both, aspect kept; cover: exactly width x height, aspect kept, the overflow cropped evenly from both sides; exact: exactly width x height, stretched.',
});

// ---------------------------------------------------------------------------------------------
// Views (libs/contracts/src/views.ts)

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif'] as const;

const pixels = (description: string) => z.number().int().min(1).openapi({ description });

const jobFields = {
  id: id('job', 'Job'),
  object: z.literal('job'),
  status: JobStatusSchema,
  target: TargetSchema.openapi({
    description: 'The target actually used: the requested one, or the largest the engine accepts for this image (spec 1).',
  }),
  filename: z
    .string()
    .max(255)
    .nullable()
    .openapi({ description: 'The filename given, the uploaded file name, or the last segment of image_url.' }),
  credits: z
    .number()
    .int()
    .min(0)
    .openapi({ description: 'Credits reserved (unfinished), charged (succeeded) or refunded (failed, cancelled) for this job.' }),
  error: z
    .object({ code: z.enum(JOB_FAILURE_CODES), message: z.string() })
    .nullable()
    .openapi({ description: 'Set when status is failed; otherwise null.' }),
  source: z
    .object({
      bytes: z.number().int().min(1).max(MAX_UPLOAD_BYTES),
      content_type: z.enum(IMAGE_TYPES),
      width: pixels("Additive field: the input image's width in pixels, after its EXIF orientation."),
      height: pixels("Additive field: the input image's height in pixels, after its EXIF orientation."),
    })
    .nullable()
    .openapi({ description: 'Size, detected content type and pixel size of the input image.' }),
  result: z
    .object({
      bytes: z.number().int().min(1),
      content_type: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/avif']),
      url: z
        .string()
        .regex(/^\/api\/v1\/jobs\/job_[0-9a-f]{32}\/result$/)
        .openapi({ pattern: '^/api/v1/jobs/job_[0-9a-f]{32}/result$', description: 'The result endpoint of this job (a path).' }),
      width: pixels("Additive field: the result's width in pixels."),
      height: pixels("Additive field: the result's height in pixels."),
    })
    .nullable()
    .openapi({ description: 'Set once succeeded; otherwise null.' }),
  created_at: timestamp('When the job was accepted (UTC).'),
  finished_at: nullableTimestamp('When the job reached a final state; null before.'),
  duration_ms: z
    .number()
    .int()
    .min(0)
    .nullable()
    .openapi({ description: 'Wall-clock processing time in ms, once finished (null when it never ran).' }),
  started_at: nullableTimestamp(
    'Additive field: when the latest processing attempt started (UTC); null before any. Kept once the job is final.',
  ),
  progress: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .openapi({
      description:
        "Additive field: the share of the image's tiles through the network, 0 to 1. 0 while queued or pending (a new attempt starts " +
        'from 0), rising while processing (updated a few times a second; encoding and storing the result come after 1), 1 once ' +
        'succeeded, null for a failed or cancelled job.',
    }),
  format: OutputFormatSchema.openapi({ description: 'Additive field: the requested output format.' }),
  quality: QualityTierSchema.openapi({ description: 'Additive field: the quality tier used.' }),
  requested_target: TargetSchema.openapi({
    description: 'Additive field: the target the request asked for (target may be smaller, spec 1 fallback).',
  }),
  content: ContentHintSchema.openapi({
    description: 'Additive field: the content hint the job runs with (photo for jobs created before it existed).',
  }),
  size: z
    .object({
      width: z.number().int().min(1).max(MAX_REQUESTED_SIDE).nullable(),
      height: z.number().int().min(1).max(MAX_REQUESTED_SIDE).nullable(),
      fit: SizeFitSchema,
    })
    .nullable()
    .openapi({
      description:
        'Additive field: the pixel size the request asked for instead of a target (width and/or height, and fit); null when it gave a target. target is then the smallest that reaches it, and result.width / result.height are the size delivered.',
    }),
  files_expire_at: nullableTimestamp(
    "Additive field: when the job's source and result are (or were) deleted: once final, finished_at plus the service's retention (docs/operations.md), or when an operator deleted them. null while unfinished, or when the service keeps files. From then on the result answers 410 files_expired.",
  ),
};

export const JobSchema = z.object(jobFields).openapi('Job', {
  description:
    'A job, retrieve view: every field (spec 2, Job table) plus the additive fields format, quality, requested_target, content, size, files_expire_at.',
});

export const JobCreateSchema = JobSchema.pick({
  id: true,
  object: true,
  status: true,
  target: true,
  filename: true,
  credits: true,
  source: true,
  created_at: true,
}).openapi('JobCreate', { description: 'A job, create view (202 answer of POST /upscale).' });

/** The fields every shorter view of a job keeps. */
const JOB_SUMMARY = { id: true, object: true, status: true, target: true, credits: true, created_at: true } as const;

export const JobListItemSchema = JobSchema.pick({
  ...JOB_SUMMARY,
  filename: true,
  format: true,
  quality: true,
  error: true,
})
  .extend({
    thumbnail: z
      .object({
        url: z
          .string()
          .url()
          .openapi({
            description: `Absolute signed URL of a WebP of the source, at most ${THUMBNAIL_SIDE} px a side; needs no API key. The same link is returned for ${THUMBNAIL_LINK_WINDOW_SECONDS / 60} minutes and stays valid for at least ${THUMBNAIL_LINK_WINDOW_SECONDS / 60} more.`,
          }),
        width: pixels("The thumbnail's width in pixels."),
        height: pixels("The thumbnail's height in pixels."),
      })
      .nullable()
      .openapi({
        description:
          "Additive field: a small picture of the source, made when the job was accepted. null for jobs accepted before thumbnails existed, for images the decoder could not shrink, and once the job's files are deleted (files_expire_at).",
      }),
  })
  .openapi('JobListItem', {
    description:
      "A job, list item view: the spec's fields plus filename, format, quality, error and thumbnail (additive), so that jobs can be told apart.",
  });

export const JobCancelSchema = JobSchema.pick({
  ...JOB_SUMMARY,
  finished_at: true,
}).openapi('JobCancel', { description: 'A job, cancel view (200 answer of DELETE /jobs/{id}).' });

export const JobListSchema = listOf(JobListItemSchema, "A page of the caller's jobs, newest first.").openapi('JobList');

export const ResultLinkSchema = z
  .object({
    url: z.string().url().openapi({ description: 'Absolute signed URL; needs no API key. Valid for expires_in seconds.' }),
    expires_in: z
      .literal(SIGNED_URL_TTL_SECONDS)
      .openapi({ type: 'integer', enum: [SIGNED_URL_TTL_SECONDS], description: 'Seconds of validity.' }),
    content_type: z.string(),
    bytes: z.number().int().min(1),
  })
  .openapi('ResultLink', { description: 'A signed download link (GET /jobs/{id}/result?redirect=false).' });

// Whatever a view schema accepts has the view's TypeScript type (checked by the compiler): the two cannot drift apart.
type Fits<View, Schema extends z.ZodTypeAny> = z.output<Schema> extends View ? true : never;
export const viewsFitTheirSchemas: [
  Fits<JobView, typeof JobSchema>,
  Fits<JobCreateView, typeof JobCreateSchema>,
  Fits<JobListItemView, typeof JobListItemSchema>,
  Fits<JobCancelView, typeof JobCancelSchema>,
  Fits<ResultLinkView, typeof ResultLinkSchema>,
] = [true, true, true, true, true];

// ---------------------------------------------------------------------------------------------
// Requests

export const JobIdParam = idParam('job', 'Job', 'job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b');
export const JobPathParams = z.object({ id: JobIdParam });
export const JOB_ID_PATTERN = idPattern('job');

/**
 * A POST /upscale field that may be left out: null or an empty string (a multipart form sends "") means the
 * default, which the service fills in. The document says null only for JSON bodies: a form field has no null, and a
 * generated client that sees one sends the text "None" or "null" (`inForm`).
 */
const optionalChoice = <T extends readonly [string, ...string[]]>(values: T, description: string, inForm: boolean) =>
  z
    .preprocess((v) => (v === '' ? null : v), z.enum(values).nullable().optional())
    .openapi(
      inForm
        ? { type: 'string', enum: [...values], description: `${description} Leave the field out (or empty) for the default.` }
        : { type: ['string', 'null'], enum: [...values, null], description: `${description} null or an empty string means the default.` },
    );

/** The fields of POST /upscale besides the image, as a JSON body (`inForm` false) or a multipart form declares them. */
const submitFields = (inForm: boolean) =>
  z.object({
    // No `default` declared for target and fit (the descriptions say it): generated clients send a declared default
    // with every request, and a target sent beside width/height is refused (invalid_size).
    target: optionalChoice(TARGETS, 'Output size: 2k (2x, 3 credits), 3k (3x, 6 credits), 4k (4x, 9 credits). Default 2k.', inForm),
    format: optionalChoice(OUTPUT_FORMATS, 'Output format. Default png.', inForm).openapi({ default: 'png' }),
    quality: optionalChoice(QUALITY_TIERS, 'Additive field: quality tier (which network runs). Default: see docs/engine.md.', inForm),
    content: optionalChoice(
      CONTENT_HINTS,
      'Additive field: what the image shows, photo or illustration (drawings, line art, screenshots, text); illustration runs an illustration network at the tiers where it measured better (sharp). Default photo.',
      inForm,
    ).openapi({ default: 'photo' }),
    filename: z
      .preprocess((v) => (v === '' ? null : v), z.string().max(255).nullable().optional())
      .openapi({
        ...(inForm ? { type: 'string' } : { type: ['string', 'null'] }),
        maxLength: 255,
        description: 'Display name for the job (path components and control characters are removed).',
      }),
    width: requestedSide('width', inForm),
    height: requestedSide('height', inForm),
    fit: optionalChoice(
      SIZE_FITS,
      'Additive field: how a result asked for by both width and height fits them. within: the largest size inside both, aspect kept; cover: exactly width x height, aspect kept, the overflow cropped evenly from both sides; exact: exactly width x height, stretched. Default within.',
      inForm,
    ),
  });

/**
 * width / height (output by pixel size, docs/api.md): a whole number of pixels. A form sends it as text ("1920"),
 * which is read as the number it spells; JSON sends a number.
 */
function requestedSide(side: 'width' | 'height', inForm: boolean) {
  const description = `Additive field: the result's ${side} in pixels, instead of target: the service runs the smallest target that reaches the requested size (charging its credits), then resizes the result to it exactly (Lanczos-3). With one side given the other follows the aspect ratio; with both, see fit. Leave target out.`;
  return z
    .preprocess(
      (v) => (v === '' ? null : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
      z.number().int().min(1).max(MAX_REQUESTED_SIDE).nullable().optional(),
    )
    .openapi(
      inForm
        ? { type: 'integer', minimum: 1, maximum: MAX_REQUESTED_SIDE, description }
        : { type: ['integer', 'null'], minimum: 1, maximum: MAX_REQUESTED_SIDE, description },
    );
}

/** How the service parses the fields (both body kinds: null and "" mean the default). */
export const SubmitFieldsSchema = submitFields(false);

/** Each field's answer when it does not parse (spec 7; docs/api.md "Errors"). */
export const SUBMIT_FIELD_ERRORS = {
  target: () => new DomainError('invalid_target'),
  format: () => new DomainError('invalid_format'),
  quality: () => new DomainError('invalid_request', `quality must be one of ${QUALITY_TIERS.join(', ')}.`),
  content: () => new DomainError('invalid_request', `content must be one of ${CONTENT_HINTS.join(', ')}.`),
  filename: () => new DomainError('invalid_request', 'filename must be a string of at most 255 characters.'),
  width: () => new DomainError('invalid_size', `width must be a whole number of pixels from 1 to ${MAX_REQUESTED_SIDE}.`),
  height: () => new DomainError('invalid_size', `height must be a whole number of pixels from 1 to ${MAX_REQUESTED_SIDE}.`),
  fit: () => new DomainError('invalid_size', `fit must be one of ${SIZE_FITS.join(', ')}.`),
  image_url: () => new DomainError('invalid_request', 'image_url is required (or send the image as multipart form data).'),
};

/** image_url: an HTTPS URL without credentials (the SSRF guard checks where it resolves when it is fetched). */
export const ImageUrlSchema = z
  .string()
  .min(1)
  .transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'image_url is not a valid URL.', params: { code: 'invalid_image_url' } });
      return z.NEVER;
    }
    if (url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'image_url must use https.', params: { code: 'invalid_image_url' } });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'image_url must not carry credentials.', params: { code: 'invalid_image_url' } });
      return z.NEVER;
    }
    return url;
  })
  .openapi({
    type: 'string',
    format: 'uri',
    pattern: '^https://',
    description:
      'Publicly reachable HTTPS URL of the image (no credentials in the URL; private, loopback and link-local addresses are refused).',
  });

export const SubmitJsonBody = SubmitFieldsSchema.extend({ image_url: ImageUrlSchema });

export const SubmitMultipartBody = submitFields(true).extend({
  image: z
    .custom<Buffer>((v) => Buffer.isBuffer(v))
    .openapi({
      type: 'string',
      // format: binary is what the generators read as a file (openapi-python-client, openapi-generator,
      // openapi-typescript); contentMediaType is the 3.1 way of saying the same.
      format: 'binary',
      description: `The image file: JPEG, PNG, WebP or AVIF, at most ${MAX_UPLOAD_BYTES} bytes (10 MiB).`,
      // a JSON Schema 2020-12 keyword the library's types do not list
      ...({ contentMediaType: 'application/octet-stream' } as object),
    }),
});

/** Idempotency-Key (spec 4.1; docs/design.md §4): any string of 1-255 printable characters, scoped to the account. */
export const IdempotencyKeyHeader = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x20-\x7e]+$/)
  .optional()
  .openapi({
    param: {
      description: 'Makes the create safe to retry: 1-255 printable ASCII characters (a UUID is recommended), scoped to the account.',
    },
  });
/**
 * Prefer: wait=N (RFC 7240): answer once the job is final or N seconds (at most 60) have passed.
 * Read by prefer-wait.ts; an unusable preference is ignored, as RFC 7240 asks, so the schema only documents it.
 */
export const PreferHeader = z
  .string()
  .optional()
  .openapi({
    param: {
      description:
        'wait=N (N from 0 to 60; more is read as 60): the answer waits until the job is final or N seconds have passed, ' +
        'whichever is first, without polling. The answer says the wait was honoured with Preference-Applied: wait=N. ' +
        'Other preferences, and an unusable wait, are ignored.',
      example: 'wait=30',
    },
  });
export const SubmitHeaders = z.object({ 'Idempotency-Key': IdempotencyKeyHeader, Prefer: PreferHeader });
export const IfNoneMatchHeader = z
  .string()
  .optional()
  .openapi({
    param: {
      description:
        'With Prefer: wait=N, the ETag of the job view you have: the answer comes as soon as the view differs (the status moved, progress rose, the job ended), or after N seconds as 304 Not Modified when nothing changed. Without Prefer, answers 304 at once when the view still has this ETag.',
      example: 'W/"2c6-2jmj7l5rSw0yVb/vlWAYkK/YBwk"',
    },
  });
export const GetJobHeaders = z.object({ Prefer: PreferHeader, 'If-None-Match': IfNoneMatchHeader });

/** A query parameter read as a number: the string as Number() reads it ("" is 0, so out of range). */
const queryNumber = (v: unknown) => (v === undefined ? undefined : Number(v));

export const ListJobsQuery = z.object({
  limit: param(z.preprocess(queryNumber, z.number().int().min(1).max(100).default(25)), 'Page size.'),
  starting_after: param(z.string().optional(), 'A next_cursor from a previous page (a job id of this account): returns the page after it.'),
  status: param(z.enum(JOB_STATUSES).optional(), 'Only jobs in this state.'),
});
export const LIST_JOBS_ERRORS = {
  limit: () => new DomainError('invalid_request', 'limit must be an integer from 1 to 100.'),
  status: () => new DomainError('invalid_request', `status must be one of ${JOB_STATUSES.join(', ')}.`),
};
export type ListJobsQuery = z.output<typeof ListJobsQuery>;

/** redirect: true/1/empty (the default) or false/0. */
const queryBoolean = (v: unknown) =>
  v === undefined || v === '' ? undefined : v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v;

export const ResultQuery = z.object({
  redirect: param(
    z.preprocess(queryBoolean, z.boolean().default(true)),
    'false (or 0): answer 200 with a ResultLink instead of redirecting. true/1/empty: redirect.',
  ),
  asset: param(z.enum(['result', 'source']).default('result'), 'result: the upscaled image. source: the original input.'),
});
export const RESULT_QUERY_ERRORS = {
  redirect: () => new DomainError('invalid_request', 'redirect must be true or false.'),
  asset: () => new DomainError('invalid_request', 'asset must be result or source.'),
};
