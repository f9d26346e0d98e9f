import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_REGISTRY, type NetworkRegistry } from '@upscaler/engine';

/**
 * The converted UpscalerJS x3 networks, slim / medium / thick, one per tier. They are several to forty
 * times slower than our trained x3 network, which is what a test needs when a job must still be running
 * seconds after it started (a SIGTERM or a cancel landing mid-run), whatever the default tiers become.
 */
export const SLOW_X3_NETWORKS = { fast: 'esrgan-slim-x3', balanced: 'esrgan-medium-x3', best: 'esrgan-thick-x3' } as const;

/** The default registry with every tier's x3 network replaced by its slow converted counterpart. */
export function slowX3Registry(): NetworkRegistry {
  const { fast, balanced, best, sharp } = DEFAULT_REGISTRY.tiers;
  return {
    ...DEFAULT_REGISTRY,
    tiers: {
      fast: { ...fast, 3: SLOW_X3_NETWORKS.fast },
      balanced: { ...balanced, 3: SLOW_X3_NETWORKS.balanced },
      best: { ...best, 3: SLOW_X3_NETWORKS.best },
      sharp,
    },
  };
}

/**
 * slowX3Registry() written as an UPSCALE_ENGINE_REGISTRY file (network files stay relative to the models
 * folder), for tests that start services as processes. Answers the file's path.
 */
export function writeSlowX3RegistryFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'upscaler-registry-')), 'slow-x3.registry.json');
  writeFileSync(path, JSON.stringify(slowX3Registry(), null, 2));
  return path;
}
