/**
 * Shutdown of one Kubernetes replica, in order: release the Lease first, so another replica takes
 * over without waiting for it to expire; then admission, the router pod watch, the server, and
 * last the store and the database.
 */
import type { Server } from 'node:http';
import type { ElectedOperator } from '../elected-operator.ts';
import type { KubeComponents } from './kube-components.ts';
import type { KubeWebhook } from './kube-webhook.ts';

export async function stopKubeOperator(p: { elected: ElectedOperator; webhook: KubeWebhook | undefined; server: Server; components: KubeComponents }): Promise<void> {
  await p.elected.stop({ release: true });
  await p.webhook?.stop();
  p.components.routerPods?.stop();
  p.server.closeAllConnections();
  p.server.close();
  await p.components.store.close();
  await p.components.db.close();
}
