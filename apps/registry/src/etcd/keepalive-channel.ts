import type { Etcd3, ILeaseKeepAliveRequest, ILeaseKeepAliveResponse, IDuplexStream } from 'etcd3';

type Pending = { resolve: (ttl: number) => void; reject: (err: Error) => void; timer: NodeJS.Timeout };

/**
 * One shared LeaseKeepAlive stream for every heartbeat this replica forwards: a keep-alive is a
 * message on an open stream rather than a new RPC. Replies come back per lease id in order.
 * A stalled stream (its member paused or partitioned) is dropped on the first timeout, so the
 * next heartbeat opens a fresh one, possibly to another member.
 */
export class KeepAliveChannel {
  private stream?: Promise<IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>>;
  private readonly pending = new Map<string, Pending[]>();

  constructor(
    private readonly client: Etcd3,
    private readonly timeoutMs: number,
  ) {}

  /** Renews the lease once; resolves with the remaining TTL in seconds (≤ 0: the lease is gone). */
  async once(leaseId: string): Promise<number> {
    const stream = await this.open();
    return new Promise<number>((resolve, reject) => {
      const entry: Pending = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.remove(leaseId, entry);
          this.reset(new Error(`lease keep-alive got no answer within ${this.timeoutMs} ms`));
          reject(new Error(`lease keep-alive timed out after ${this.timeoutMs} ms`));
        }, this.timeoutMs),
      };
      const list = this.pending.get(leaseId) ?? [];
      list.push(entry);
      this.pending.set(leaseId, list);
      stream.write({ ID: leaseId });
    });
  }

  private open(): Promise<IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>> {
    if (this.stream) return this.stream;
    const opening = this.client.leaseClient.leaseKeepAlive().then((s) => {
      s.on('data', (res: ILeaseKeepAliveResponse) => {
        const list = this.pending.get(res.ID);
        const entry = list?.shift();
        if (list && list.length === 0) this.pending.delete(res.ID);
        if (!entry) return;
        clearTimeout(entry.timer);
        entry.resolve(Number(res.TTL));
      });
      s.on('error', (err: Error) => this.reset(err, s));
      s.on('end', () => this.reset(new Error('lease keep-alive stream ended'), s));
      return s;
    });
    opening.catch(() => {
      if (this.stream === opening) this.stream = undefined;
    });
    this.stream = opening;
    return opening;
  }

  /**
   * Drops the current stream so the next keep-alive opens a fresh one (possibly to another
   * member); keep-alives waiting on the old stream fail and their heartbeats answer an error.
   */
  restart(why: string): void {
    this.reset(new Error(`lease keep-alive stream restarted: ${why}`));
  }

  private remove(leaseId: string, entry: Pending): void {
    const list = this.pending.get(leaseId);
    if (!list) return;
    const i = list.indexOf(entry);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.pending.delete(leaseId);
  }

  private reset(err: Error, which?: IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>): void {
    const current = this.stream;
    this.stream = undefined;
    void current?.then((s) => {
      if (which && s !== which) return;
      try {
        s.cancel();
      } catch {
        /* already closed */
      }
    }, () => undefined);
    for (const list of this.pending.values()) {
      for (const e of list) {
        clearTimeout(e.timer);
        e.reject(err);
      }
    }
    this.pending.clear();
  }

  close(): void {
    this.reset(new Error('registry is shutting down'));
  }
}
