import { streams } from '@upscaler/contracts';
import { commandHandlerFor } from '@upscaler/runtime';
import { apiKeyDecider } from './model/api-key.decider';

/** Runs API-key commands on `apikey-…` streams (libs/runtime/src/command-handler.ts). */
export class ApiKeyCommandHandler extends commandHandlerFor(apiKeyDecider, streams.apiKey) {}
