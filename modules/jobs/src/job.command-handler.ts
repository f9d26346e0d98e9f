import { streams } from '@upscaler/contracts';
import { commandHandlerFor } from '@upscaler/runtime';
import { jobDecider } from './model/job.decider';

/** Runs job commands on `job-…` streams (libs/runtime/src/command-handler.ts). */
export class JobCommandHandler extends commandHandlerFor(jobDecider, streams.job) {}
