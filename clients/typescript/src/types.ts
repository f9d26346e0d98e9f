/**
 * The API's shapes, taken from the types openapi-typescript generates from docs/openapi.json at build time
 * (src/generated/openapi.ts, not kept in git and never edited by hand). They are reached through the paths and
 * operations, which are the public contract, rather than through component names, which the document is free to
 * rename.
 */
import type { paths, webhooks } from './generated/openapi';

type Method = 'get' | 'post' | 'delete' | 'patch';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Answer<P extends keyof paths, M extends Method, S extends number> =
  Operation<P, M> extends { responses: infer R } ? (S extends keyof R ? JsonOf<R[S]> : never) : never;
type MultipartOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody: { content: { 'multipart/form-data': infer B } } } ? B : never;
type JsonBodyOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type QueryOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The full job (GET /jobs/{id}, an idempotent replay of POST /upscale, a webhook's data). */
export type Job = Answer<'/api/v1/jobs/{id}', 'get', 200>;
/** The create view (202 of POST /upscale). */
export type JobCreated = Answer<'/api/v1/upscale', 'post', 202>;
export type JobList = Answer<'/api/v1/jobs', 'get', 200>;
export type JobListItem = JobList['data'][number];
export type JobListQuery = QueryOf<'/api/v1/jobs', 'get'>;
/** The cancel view (200 of DELETE /jobs/{id}). */
export type JobCancelled = Answer<'/api/v1/jobs/{id}', 'delete', 200>;
export type ResultLink = Answer<'/api/v1/jobs/{id}/result', 'get', 200>;
export type JobStatus = Job['status'];
export type Target = NonNullable<MultipartOf<'/api/v1/upscale', 'post'>['target']>;
export type OutputFormat = NonNullable<MultipartOf<'/api/v1/upscale', 'post'>['format']>;
export type Quality = NonNullable<MultipartOf<'/api/v1/upscale', 'post'>['quality']>;
/** The content hint: photo (default) or illustration (drawings, line art, screenshots, text). */
export type Content = NonNullable<MultipartOf<'/api/v1/upscale', 'post'>['content']>;
/** How a result asked for by both width and height fits them: within (default), cover or exact. */
export type Fit = NonNullable<MultipartOf<'/api/v1/upscale', 'post'>['fit']>;

export type Account = Answer<'/api/v1/account', 'get', 200>;
export type ApiKey = Answer<'/api/v1/api_keys/{id}', 'delete', 200>;
export type ApiKeyCreated = Answer<'/api/v1/api_keys', 'post', 201>;
export type ApiKeyList = Answer<'/api/v1/api_keys', 'get', 200>;
export type ApiKeyCreate = JsonBodyOf<'/api/v1/api_keys', 'post'>;
export type Scope = ApiKey['scopes'][number];

export type WebhookEndpoint = Answer<'/api/v1/webhook_endpoints/{id}', 'get', 200>;
export type WebhookEndpointCreated = Answer<'/api/v1/webhook_endpoints', 'post', 201>;
export type WebhookEndpointList = Answer<'/api/v1/webhook_endpoints', 'get', 200>;
export type WebhookEndpointCreate = JsonBodyOf<'/api/v1/webhook_endpoints', 'post'>;
export type DeliveryAttemptList = Answer<'/api/v1/webhook_endpoints/{id}/deliveries', 'get', 200>;

type AnyAnswer<O> = O extends { responses: infer R } ? { [S in keyof R]: JsonOf<R[S]> }[keyof R] : never;
type EveryAnswer = { [P in keyof paths]: { [M in Method]: AnyAnswer<NonNullable<paths[P][M]>> }[Method] }[keyof paths];
/** Every error answer of every operation: `{ error: { code, message } }`. */
export type ErrorBody = Extract<EveryAnswer, { error: { code: string; message: string } }>;
/** The codes the document lists, on answers and on failed jobs; a newer service may send others (spec 9). */
export type KnownErrorCode = ErrorBody['error']['code'] | NonNullable<Job['error']>['code'];
export type ErrorCode = KnownErrorCode | (string & {});

/** The body of a webhook delivery (job.succeeded, job.failed, job.cancelled). */
export type WebhookEvent = {
  [E in keyof webhooks]: NonNullable<webhooks[E]['post']> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
}[keyof webhooks];
export type WebhookEventType = keyof webhooks;

export const FINAL_STATUSES: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];
export function isFinal(job: { status: JobStatus }): boolean {
  return FINAL_STATUSES.includes(job.status);
}

/**
 * Wait and progress add started_at, progress (0..1) and pixel sizes to the job; until the
 * document lists them these are read as optional.
 */
export interface JobProgressFields {
  progress?: number | null;
  started_at?: string | null;
}
export function progressOf(job: object): number | undefined {
  const p = (job as JobProgressFields).progress;
  return typeof p === 'number' && Number.isFinite(p) ? Math.min(1, Math.max(0, p)) : undefined;
}
