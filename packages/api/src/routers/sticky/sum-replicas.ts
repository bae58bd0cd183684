import type { ReplicaStats } from '../../clients/router-stats.ts';

export interface StickyTotals {
  namespace: string;
  function: string;
  requests: number;
  stickyRequests: number;
  stickyKeyMissing: number;
  stickyHits: number;
  teleports: number;
  /** hits / sticky requests over all replicas; null before the first sticky request. */
  hitRatio: number | null;
  replicas: number;
}

/** Sums each function's counters over the replicas that answered. Pure. */
export function sumReplicas(replicas: ReplicaStats[], filter: { namespace?: string; function?: string } = {}): StickyTotals[] {
  const byKey = new Map<string, StickyTotals>();
  for (const rep of replicas) {
    for (const f of rep.functions) {
      if (filter.namespace && f.namespace !== filter.namespace) continue;
      if (filter.function && f.function !== filter.function) continue;
      const key = `${f.namespace}/${f.function}`;
      let t = byKey.get(key);
      if (!t) byKey.set(key, (t = { namespace: f.namespace, function: f.function, requests: 0, stickyRequests: 0, stickyKeyMissing: 0, stickyHits: 0, teleports: 0, hitRatio: null, replicas: 0 }));
      t.requests += f.requests ?? 0;
      t.stickyRequests += f.stickyRequests ?? 0;
      t.stickyKeyMissing += f.stickyKeyMissing ?? 0;
      t.stickyHits += f.stickyHits ?? 0;
      t.teleports += f.teleports ?? 0;
      t.replicas++;
    }
  }
  const out = [...byKey.values()];
  for (const t of out) t.hitRatio = t.stickyRequests > 0 ? t.stickyHits / t.stickyRequests : null;
  return out.sort((a, b) => (a.namespace === b.namespace ? a.function.localeCompare(b.function) : a.namespace.localeCompare(b.namespace)));
}
