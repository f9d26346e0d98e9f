import { apiKeysCapability } from '@upscaler/api-keys';
import { billingCapability } from '@upscaler/billing';
import { jobsCapability } from '@upscaler/jobs';
import { webhooksCapability } from '@upscaler/webhooks';
import type { Capability } from '@upscaler/runtime';

/**
 * Not a capability: the list of them, the one place that says what the system is made of. Every service passes it to
 * runService (and tests to their fixtures): all processes share one database and one log, so each runs every
 * capability's migrations and keeps every read model, whichever endpoints and workers it serves
 * (libs/runtime/src/capability.ts).
 */
export const CAPABILITIES: readonly Capability[] = [apiKeysCapability, billingCapability, jobsCapability, webhooksCapability];
