import { sendWebhook } from '@upscaler/net';

/**
 * How the delivery worker POSTs (the SSRF-guarded sender of @upscaler/net). A port so that the middle tier can hand
 * it its own test CA; the service always binds the real sender (webhooks.module.ts).
 */
export type WebhookSender = typeof sendWebhook;
export const WEBHOOK_SENDER = Symbol('WEBHOOK_SENDER');
