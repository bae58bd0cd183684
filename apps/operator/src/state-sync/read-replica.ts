import { syncableName } from './render-settings.ts';
import type { ReplicaReport, ReportedSyncStatus } from './replica-status.ts';

/**
 * One replica's statesync `status()` from its admin API (GET <admin>/v1/stats), the same on both
 * backends (local router processes, Kubernetes pods); every way it can fail is a report, not a throw.
 */
export async function readReplica(name: string, adminUrl: string | undefined, timeoutMs = 2000): Promise<ReplicaReport> {
  if (!adminUrl) return { replica: name, error: 'replica not running' };
  try {
    const res = await fetch(`${adminUrl}/v1/stats`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return { replica: name, error: `GET /v1/stats answered ${res.status}` };
    const body = (await res.json()) as { statesync?: ReportedSyncStatus };
    if (!body.statesync) return { replica: name, error: 'running without statesync (no --redis-url)' };
    const syncables = body.statesync.syncables.map((x) => ({ ...x, syncable: syncableName(x.syncable) }));
    return { replica: name, status: { ...body.statesync, syncables } };
  } catch (err) {
    return { replica: name, error: `unreachable: ${(err as Error).message}` };
  }
}
