import type { Capability } from '@upscaler/runtime';
import { jobsConfig } from './jobs.config';
import { jobMetrics } from './jobs.metrics';
import { jobProjection } from './projections/job.projection';

/**
 * The job streams' read model (its rows in `read_models`), the jobs' series and settings; the work queue is a lib's
 * (libs/work-queue).
 */
export const jobsCapability: Capability = { name: 'jobs', projections: [jobProjection], metrics: jobMetrics, config: [jobsConfig] };
