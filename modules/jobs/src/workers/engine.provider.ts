import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { createEngine, type UpscaleEngine } from '@upscaler/engine';
import { CONFIG, LOGGER } from '@upscaler/runtime';
import type { AppConfig, Logger } from '@upscaler/config';

/** One engine per processor process (its worker holds one ONNX session per network). */
@Injectable()
export class EngineProvider implements OnModuleInit, OnApplicationShutdown {
  private instance: UpscaleEngine | undefined;

  constructor(
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    this.instance = await createEngine({
      maxOutputPixels: this.config.maxOutputPixels,
      maxInputPixels: this.config.maxInputPixels,
      threads: this.config.engineThreads || undefined,
      defaultQuality: this.config.defaultQuality,
      registry: this.config.engineRegistry,
      modelsDir: this.config.modelsDir,
      precision: this.config.enginePrecision,
    });
    // Which arithmetic this processor runs (auto follows the CPU's VNNI flag: docs/engine.md, "Precision").
    const { precision, tiers, illustration } = this.instance.describe();
    this.logger.info({ precision, setting: this.config.enginePrecision, tiers, illustration }, `engine runs ${precision} networks`);
  }

  get engine(): UpscaleEngine {
    if (!this.instance) throw new Error('engine not started');
    return this.instance;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.instance?.close();
  }
}
