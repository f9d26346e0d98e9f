import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { createEngine, type UpscaleEngine } from '@upscaler/engine';
import { LOGGER } from '@upscaler/runtime';
import type { Logger } from '@upscaler/config';
import { JOB_SETTINGS, type JobSettings } from '../jobs.config';

/** One engine per processor process (its worker holds one ONNX session per network). */
@Injectable()
export class EngineProvider implements OnModuleInit, OnApplicationShutdown {
  private instance: UpscaleEngine | undefined;

  constructor(
    @Inject(JOB_SETTINGS) private readonly settings: JobSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    this.instance = await createEngine({
      maxOutputPixels: this.settings.maxOutputPixels,
      maxInputPixels: this.settings.maxInputPixels,
      threads: this.settings.engine.threads || undefined,
      defaultQuality: this.settings.defaultQuality,
      registry: this.settings.engine.registry,
      modelsDir: this.settings.engine.modelsDir,
      precision: this.settings.engine.precision,
    });
    // Which arithmetic this processor runs (auto follows the CPU's VNNI flag: docs/engine.md, "Precision").
    const { precision, tiers, illustration } = this.instance.describe();
    this.logger.info({ precision, setting: this.settings.engine.precision, tiers, illustration }, `engine runs ${precision} networks`);
  }

  get engine(): UpscaleEngine {
    if (!this.instance) throw new Error('engine not started');
    return this.instance;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.instance?.close();
  }
}
