import type { sendWebhook } from './webhook-sender';

/**
 * How the delivery worker POSTs (the SSRF-guarded sender, webhook-sender.ts). A port so that the middle tier can hand
 * it its own test CA; the service always binds the real sender (webhook-workers.module.ts).
 */
export type WebhookSender = typeof sendWebhook;
export const WEBHOOK_SENDER = Symbol('WEBHOOK_SENDER');
