/**
 * Jobs (spec 1-4, docs/job-states.md): `job-…` streams and their idempotency keys; the submit saga, the job
 * endpoints and the signed downloads; the processor's workers (claim, run, lease sweep, file retention).
 */
// model: commands, the decider, state, views, target policy and output size
export * from './model/job.commands';
export * from './model/job.state';
export * from './model/job.decider';
export * from './model/job.views';
export * from './model/target-policy';
export * from './model/output-size';
export * as jobFixtures from './model/job.fixtures';
// projections
export * from './projections/job.projection';
// HTTP: schemas and OpenAPI of the endpoints; the files
export * from './http/jobs.schemas';
export * from './http/jobs.routes';
export * from './http/job-poll.fast-path';
export * from './files/files.routes';
export * from './files/admin-files.routes';
export * from './files/job-files';
// what services compose
export * from './jobs-http.module';
export * from './workers/job-workers.module';
export * from './jobs.capability';
export * from './jobs.config';
export * from './job.command-handler';
export * from './files/file-deletion.schema';
