/** @upscaler/client for browsers and any fetch runtime: no Node modules. Under Node the package resolves to node.ts. */
export { Upscaler, DEFAULT_BASE_URL, MAX_WAIT_SECONDS } from './client';
export type { UpscalerOptions, UpscaleOptions, WaitOptions, DownloadOptions, Download, JobRef } from './client';
export type { ImageInput } from './input';
export type { RetryInfo, RetryOptions } from './http';
export * from './errors';
export * from './types';
export { verifyWebhook, signWebhook } from './webhooks';
export type { VerifyOptions, WebhookHeaders } from './webhooks';
