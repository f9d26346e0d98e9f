import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { createEngine, type UpscaleEngine } from '@upscaler/engine';
import { RUNTIME, type Runtime } from '@upscaler/runtime';

/** One engine per processor process (its worker holds one ONNX session per network). */
@Injectable()
export class EngineProvider implements OnModuleInit, OnApplicationShutdown {
  private instance: UpscaleEngine | undefined;

  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

  async onModuleInit(): Promise<void> {
    this.instance = await createEngine({
      maxOutputPixels: this.rt.config.maxOutputPixels,
      maxInputPixels: this.rt.config.maxInputPixels,
      threads: this.rt.config.engineThreads || undefined,
      defaultQuality: this.rt.config.defaultQuality,
      registry: this.rt.config.engineRegistry,
      modelsDir: this.rt.config.modelsDir,
    });
  }

  get engine(): UpscaleEngine {
    if (!this.instance) throw new Error('engine not started');
    return this.instance;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.instance?.close();
  }
}
