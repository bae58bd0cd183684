import type { Etcd3 } from 'etcd3';

/** Where the barrier's read runs: straight on a client, or on the leader's connection (leader-affinity.ts). */
export interface ReadRoute {
  run<T>(call: (client: Etcd3) => Promise<T>): Promise<T>;
}

/**
 * Asks etcd for its current revision with a linearizable read of one small key, sharing reads
 * between concurrent callers. A read that was already in flight when a caller arrived may have
 * been served before that caller's preceding writes were acknowledged, so such a caller waits
 * for the next read instead: at most one read in flight and one queued, however many queries.
 */
export class RevisionBarrier {
  private inflight?: Promise<number>;
  private queued?: Promise<number>;
  /** Linearizable etcd reads issued (for metrics: reads saved = queries − reads). */
  reads = 0;

  constructor(
    client: Etcd3,
    private readonly key: string,
    private readonly route: ReadRoute = { run: (call) => call(client) },
  ) {}

  current(): Promise<number> {
    if (!this.inflight) return this.launch();
    if (!this.queued) {
      const after = this.inflight.then(
        () => undefined,
        () => undefined,
      );
      this.queued = after.then(() => {
        this.queued = undefined;
        return this.launch();
      });
    }
    return this.queued;
  }

  private launch(): Promise<number> {
    this.reads++;
    const p = this.route
      .run((c) => c.kv.range({ key: Buffer.from(this.key), count_only: true }))
      .then((res) => Number(res.header.revision))
      .finally(() => {
        if (this.inflight === p) this.inflight = undefined;
      });
    this.inflight = p;
    return p;
  }
}
