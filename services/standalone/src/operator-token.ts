import { join } from 'node:path';
import { loadOrCreateSecret } from '@upscaler/config';

/**
 * docs/design.md §6: the standalone generates an operator token when UPSCALE_OPERATOR_TOKEN is unset, keeps
 * it in `<data dir>/operator-token` (mode 0600) and says where at start.
 */
export async function resolveOperatorToken(dataDir: string, given: string | undefined): Promise<{ token: string; file?: string }> {
  if (given) return { token: given };
  const file = join(dataDir, 'operator-token');
  return { token: await loadOrCreateSecret(file), file };
}
