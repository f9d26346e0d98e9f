import { startClusterAsService } from './cluster';
import { startDeploymentAsService } from './deployment';
import { e2eMode } from './e2e-mode';
import { startService, type StartedService, type StartOptions } from './standalone';

/**
 * The system under test in this jest project's mode (e2e-mode.ts), behind one StartedService handle: a fresh
 * standalone, a fresh distributed deployment, or the running cluster release. Suites that test the standalone process
 * itself (its data dir, a crash and restart) call startService instead.
 */
export function startTarget(opts: Omit<StartOptions, 'service' | 'dataDir'> = {}): Promise<StartedService> {
  switch (e2eMode()) {
    case 'cluster':
      return startClusterAsService(opts);
    case 'distributed':
      return startDeploymentAsService(opts);
    case 'standalone':
      return startService(opts);
  }
}
