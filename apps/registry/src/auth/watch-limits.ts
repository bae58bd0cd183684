/**
 * Caps on concurrent watch streams (`/api/v1/registry/watch` and
 * `/internal/v1/replication/watch` together): at most `maxWatchesPerClient` per client — its
 * remote address, the only identity an anonymous watcher has (forwarding headers are not
 * trusted) — and `maxWatches` on this replica in total. 0 turns a cap off. Each stream costs a
 * socket, an index subscription and its send buffer (up to 16 MiB when the watcher is slow), so an
 * unbounded number lets one client exhaust the replica's memory and file descriptors.
 */
export interface WatchLimits {
  maxWatches: number;
  maxWatchesPerClient: number;
}

/** A router watches one stream per namespace it routes: the per-client default leaves room for many. */
export const DEFAULT_WATCH_LIMITS: WatchLimits = { maxWatches: 4096, maxWatchesPerClient: 256 };

/** Seconds a refused watcher is told to wait (`Retry-After`). */
export const WATCH_RETRY_AFTER_SECONDS = 5;

export type WatchSlot =
  | { ok: true; release: () => void }
  | { ok: false; code: 'too_many_watches' | 'watch_capacity_reached'; message: string; retryAfterSeconds: number };

/** The client key of a remote address: IPv4-mapped IPv6 folded to IPv4, so one client is one key. */
export function clientKey(remoteAddress: string | undefined): string {
  const a = remoteAddress ?? 'unknown';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

export class WatchLimiter {
  private readonly perClient = new Map<string, number>();
  private open = 0;

  constructor(private readonly limits: WatchLimits = DEFAULT_WATCH_LIMITS) {}

  /** Streams held now (accepted and not yet released). */
  get total(): number {
    return this.open;
  }

  countOf(client: string): number {
    return this.perClient.get(client) ?? 0;
  }

  /** Takes a slot for `client`, or says which cap is full and what to do. `release` is idempotent. */
  acquire(client: string): WatchSlot {
    const { maxWatches, maxWatchesPerClient } = this.limits;
    const mine = this.countOf(client);
    if (maxWatchesPerClient > 0 && mine >= maxWatchesPerClient) {
      return {
        ok: false,
        code: 'too_many_watches',
        message: `this client (${client}) already holds ${mine} watch streams, the most one client may hold (max_watches_per_client = ${maxWatchesPerClient}); close a stream you no longer need or watch several services in one stream (repeat service / servicePrefix), then retry`,
        retryAfterSeconds: WATCH_RETRY_AFTER_SECONDS,
      };
    }
    if (maxWatches > 0 && this.open >= maxWatches) {
      return {
        ok: false,
        code: 'watch_capacity_reached',
        message: `this registry replica already serves ${this.open} watch streams, its limit (max_watches = ${maxWatches}); retry later or on another replica, or ask the registry's operator to raise max_watches or add replicas`,
        retryAfterSeconds: WATCH_RETRY_AFTER_SECONDS,
      };
    }
    this.open++;
    this.perClient.set(client, mine + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.open--;
        const n = this.countOf(client) - 1;
        if (n <= 0) this.perClient.delete(client);
        else this.perClient.set(client, n);
      },
    };
  }
}
