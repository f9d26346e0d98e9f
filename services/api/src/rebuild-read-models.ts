import { CAPABILITIES } from '@upscaler/capabilities';
import { createLogger, loadConfig } from '@upscaler/config';
import { buildRuntime, configSectionsOf, rebuildProjections } from '@upscaler/runtime';

/**
 * `npm run rebuild-read-models` (docs/design.md §2: projections are rebuildable from position 0): empties every
 * inline projection (read models, balances, the work queue) and applies the whole event log again.
 * Run it with every service stopped (embedded mode owns its data dir; with DATABASE_URL, stop the
 * Deployments): appends made during a rebuild would be applied twice.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env, configSectionsOf(CAPABILITIES));
  const logger = createLogger(config.logLevel, 'rebuild-read-models');
  const rt = await buildRuntime(config, logger, 'rebuild-read-models', CAPABILITIES);
  try {
    const started = Date.now();
    const events = await rebuildProjections(rt);
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
