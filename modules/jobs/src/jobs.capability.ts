import type { Capability } from '@upscaler/runtime';
import { jobProjection } from './projections/job.projection';

/** The job streams' read model (its rows in `read_models`); the work queue is a lib's (libs/work-queue). */
export const jobsCapability: Capability = { name: 'jobs', projections: [jobProjection] };
