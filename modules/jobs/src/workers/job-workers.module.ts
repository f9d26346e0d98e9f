import { Module } from '@nestjs/common';
import { JobFiles } from '../files/job-files';
import { jobSettingsProvider } from '../jobs.config';
import { JobCommandHandler } from '../job.command-handler';
import { ClaimLoop } from './claim.loop';
import { EngineProvider } from './engine.provider';
import { FileRetentionSweeper } from './file-retention.sweeper';
import { JobRunner } from './job.runner';
import { LeaseSweeper } from './lease.sweeper';

/**
 * What the processor runs (docs/design.md §1): claims jobs from the work queue, runs the engine, stores the result;
 * finds lost leases; and deletes final jobs' files when their retention runs out.
 */
@Module({
  providers: [EngineProvider, JobCommandHandler, JobRunner, ClaimLoop, LeaseSweeper, JobFiles, FileRetentionSweeper, jobSettingsProvider],
})
export class JobWorkersModule {}
