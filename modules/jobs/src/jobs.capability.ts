import type { Capability } from '@upscaler/runtime';
import { jobMetrics } from './jobs.metrics';
import { jobProjection } from './projections/job.projection';

/** The job streams' read model (its rows in `read_models`) and the jobs' series; the work queue is a lib's (libs/work-queue). */
export const jobsCapability: Capability = { name: 'jobs', projections: [jobProjection], metrics: jobMetrics };
