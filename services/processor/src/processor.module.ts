import { Module } from '@nestjs/common';
import { ClaimLoop } from './claim.loop';
import { EngineProvider } from './engine.provider';
import { JobRunner } from './job.runner';
import { LeaseSweeper } from './lease.sweeper';
import { FileRetentionSweeper } from './file-retention.sweeper';
import { JobFiles } from '@upscaler/runtime';

/**
 * The engine service (docs/design.md §1): claims jobs from the work queue, runs the engine, stores the result; and
 * deletes final jobs' files when their retention runs out.
 */
@Module({ providers: [EngineProvider, JobRunner, ClaimLoop, LeaseSweeper, JobFiles, FileRetentionSweeper] })
export class ProcessorModule {}
