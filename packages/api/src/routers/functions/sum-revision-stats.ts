import type { ReplicaStats } from '../../clients/router-stats.ts';

export interface RevisionLive {
  revision: string;
  /** Requests per second over the routers' last one-second window, summed over replicas. */
  rps: number;
  /** Time-weighted average of in-flight + queued over that window, summed over replicas. */
  concurrency: number;
  inflight: number;
  queued: number;
}

/**
 * Per-revision load of one function across every router replica that answered: what the KPA
 * autoscaler sees, summed the same way. Replicas that did not answer contribute nothing (the
 * caller reports them). Sorted by revision name.
 */
export function sumRevisionStats(replicas: readonly ReplicaStats[], namespace: string, fn: string): RevisionLive[] {
  const by = new Map<string, RevisionLive>();
  for (const rep of replicas) {
    if (!rep.ok) continue;
    for (const r of rep.revisions) {
      if (r.namespace !== namespace || r.function !== fn) continue;
      let acc = by.get(r.revision);
      if (!acc) by.set(r.revision, (acc = { revision: r.revision, rps: 0, concurrency: 0, inflight: 0, queued: 0 }));
      acc.rps += r.windowMs > 0 ? r.requests / (r.windowMs / 1000) : 0;
      acc.concurrency += r.averageConcurrency;
      acc.inflight += r.inflight;
      acc.queued += r.queued;
    }
  }
  return [...by.values()].sort((a, b) => a.revision.localeCompare(b.revision)).map((r) => ({ ...r, rps: Math.round(r.rps * 10) / 10, concurrency: Math.round(r.concurrency * 100) / 100 }));
}
