import { CLUSTER_NODE_IP, clusterReceiverCa } from './cluster';
import { e2eMode } from './e2e-mode';
import { createTestCa, type TestCa } from './https';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

/**
 * The HTTPS receiver of a suite (webhook deliveries, `image_url` sources) where the service under test reaches it, with
 * the CA the service is to trust (pass `ca.caPath` as NODE_EXTRA_CA_CERTS): on loopback with a throw-away CA, or in
 * cluster mode on the node's bridge address with a certificate of the cluster's CA, which the release already trusts.
 */
export async function startSuiteReceiver(
  defaultStatus = 200,
): Promise<{ ca: Pick<TestCa, 'cert' | 'key' | 'caPath' | 'cleanup'>; receiver: WebhookReceiver }> {
  if (e2eMode() === 'cluster') {
    const ca = clusterReceiverCa();
    return { ca, receiver: await startWebhookReceiver(ca, defaultStatus, { host: CLUSTER_NODE_IP }) };
  }
  const ca = await createTestCa();
  return { ca, receiver: await startWebhookReceiver(ca, defaultStatus) };
}
