import type { FactoryProvider } from '@nestjs/common';
import { configSection, type AppConfig, type ConfigSection } from '@upscaler/config';
import { CONFIG } from './tokens';

/**
 * A capability's settings under its own token (e.g. JOB_SETTINGS), from the config the runtime read at start-up: its
 * classes inject the section they own, not the whole `AppConfig`.
 */
export function settingsProvider<T>(token: symbol, section: ConfigSection<T>): FactoryProvider<T> {
  return { provide: token, useFactory: (config: AppConfig): T => configSection(config, section), inject: [CONFIG] };
}
