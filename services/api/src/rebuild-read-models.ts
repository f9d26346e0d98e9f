import { createLogger, loadConfig } from '@upscaler/platform';
import { buildRuntime } from '@upscaler/runtime';

/**
 * `npm run rebuild-read-models` (DESIGN 2: read models are rebuildable from position 0): drops every
 * read-model row and folds the whole event log again. Run it with the api stopped (embedded mode
 * owns its data dir), or against DATABASE_URL while the api's projection runner is paused.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'rebuild-read-models');
  const rt = await buildRuntime(config, logger, 'rebuild-read-models');
  try {
    const started = Date.now();
    const events = await rt.projector.rebuild();
    logger.info({ events, ms: Date.now() - started }, 'read models rebuilt from position 0');
    process.stdout.write(`Rebuilt the read models from ${events} events in ${Date.now() - started} ms.\n`);
  } finally {
    await rt.close();
  }
}

main().catch((err) => {
  process.stderr.write(`rebuild failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
