import { Module } from '@nestjs/common';
import { ClaimLoop } from './claim.loop';
import { EngineProvider } from './engine.provider';
import { JobRunner } from './job.runner';
import { LeaseSweeper } from './lease.sweeper';

/** The engine service (docs/design.md §1): claims jobs from the work queue, runs the engine, stores the result. */
@Module({ providers: [EngineProvider, JobRunner, ClaimLoop, LeaseSweeper] })
export class ProcessorModule {}
