/**
 * Shutdown of the local backend, in order: stop taking requests and deciding, stop reconciling,
 * then the workers (pool, then revision workers), the RegistryClusters' and StateSyncs' processes,
 * and last the store and its database.
 */
import type { LocalComponents } from './local-components.ts';

export async function stopLocalOperator(c: LocalComponents, rollups: { stop(): void }): Promise<void> {
  c.server.close();
  c.server.closeAllConnections();
  c.autoscaler.stop();
  await c.cron.stop();
  await c.queueTriggers.stop();
  c.executorView.stop();
  rollups.stop();
  await c.operator.stop();
  await c.pool.stopAll();
  await c.backend.stopAll();
  c.isolation.close();
  await c.registryClusters.stop();
  await c.stateSyncs.stop();
  await c.syncReplicas.stop();
  await c.store.close();
  await c.db.close();
}
