import { Module } from '@nestjs/common';
import { EngineProvider } from './engine.provider';
import { JobQueueConsumer } from './job-queue.consumer';
import { JobRunner } from './job.runner';

/** The engine service (DESIGN 1): decode, super-resolve, re-encode, store the result. */
@Module({ providers: [EngineProvider, JobRunner, JobQueueConsumer] })
export class ProcessorModule {}
