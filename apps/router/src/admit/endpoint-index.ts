/**
 * Per revision an immutable snapshot of its ready endpoints. A new endpoint list replaces the
 * snapshots wholesale, but Endpoint objects (and their in-flight counters) are reused while
 * their address stays, so admissions in flight keep releasing the right counter.
 */
import { namespacedKey } from '../routing/namespaced-key.ts';
import { Endpoint } from './endpoint.ts';

/** One worker as an endpoint source reports it (file or registry). */
export interface EndpointRecord {
  namespace: string;
  function: string;
  revision: string;
  /** "host:port", hashed exactly as written. */
  address: string;
  ready: boolean;
}

export interface EndpointIndexChange {
  /** Revisions whose ready set changed (their activator queues should be drained). */
  changedRevisions: string[];
  /** Addresses that appeared or whose readiness changed: a new snapshot lifts their quarantine. */
  changedAddresses: string[];
  /** Addresses no revision uses any more (their connection pools can close). */
  removedAddresses: string[];
}

const EMPTY: readonly Endpoint[] = Object.freeze([]);

export class EndpointIndex {
  private snapshots = new Map<string, readonly Endpoint[]>();
  /** Every known endpoint (ready or not) per revision, by address. */
  private known = new Map<string, Map<string, { endpoint: Endpoint; ready: boolean }>>();

  /** The ready endpoints of a revision (empty when none). Hot path: one Map lookup. */
  ready(revKey: string): readonly Endpoint[] {
    return this.snapshots.get(revKey) ?? EMPTY;
  }

  revisions(): string[] {
    return [...this.known.keys()];
  }

  all(): Array<{ revision: string; address: string; ready: boolean; inflight: number }> {
    const out: Array<{ revision: string; address: string; ready: boolean; inflight: number }> = [];
    for (const [rev, m] of this.known) for (const [address, v] of m) out.push({ revision: rev, address, ready: v.ready, inflight: v.endpoint.inflight });
    return out;
  }

  /** Replaces the whole endpoint set. */
  replace(records: readonly EndpointRecord[]): EndpointIndexChange {
    const next = new Map<string, Map<string, { endpoint: Endpoint; ready: boolean }>>();
    const changedAddresses = new Set<string>();
    for (const r of records) {
      const key = namespacedKey(r.namespace, r.revision);
      let m = next.get(key);
      if (!m) next.set(key, (m = new Map()));
      const prev = this.known.get(key)?.get(r.address);
      const ready = r.ready && (m.get(r.address)?.ready ?? true);
      if (!prev || prev.ready !== ready) changedAddresses.add(r.address);
      m.set(r.address, { endpoint: prev?.endpoint ?? new Endpoint(r.address), ready });
    }
    const changedRevisions: string[] = [];
    const nextSnapshots = new Map<string, readonly Endpoint[]>();
    for (const [key, m] of next) {
      const ready = Object.freeze([...m.values()].filter((v) => v.ready).map((v) => v.endpoint).sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)));
      const old = this.snapshots.get(key) ?? EMPTY;
      if (ready.length > 0) nextSnapshots.set(key, ready);
      if (old.length !== ready.length || old.some((e, i) => e !== ready[i])) changedRevisions.push(key);
    }
    for (const key of this.snapshots.keys()) if (!nextSnapshots.has(key) && !changedRevisions.includes(key)) changedRevisions.push(key);
    const stillUsed = new Set<string>();
    for (const m of next.values()) for (const a of m.keys()) stillUsed.add(a);
    const removedAddresses: string[] = [];
    for (const m of this.known.values()) for (const a of m.keys()) if (!stillUsed.has(a) && !removedAddresses.includes(a)) removedAddresses.push(a);
    this.known = next;
    this.snapshots = nextSnapshots;
    return { changedRevisions, changedAddresses: [...changedAddresses], removedAddresses };
  }
}
