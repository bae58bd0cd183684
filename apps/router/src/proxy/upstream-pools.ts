/**
 * One keep-alive connection pool per worker address (http1-upstream.ts). Pools of addresses
 * that left every snapshot close: idle sockets at once, busy ones when their exchange ends.
 */
import { UpstreamPool } from './http1-upstream.ts';

export interface UpstreamPoolOptions {
  connectTimeoutMs: number;
  /** Idle sockets older than this are not reused (below node's default 5 s server keep-alive). */
  keepAliveTimeoutMs: number;
}

export class UpstreamPools {
  private readonly pools = new Map<string, UpstreamPool>();

  constructor(private readonly opts: UpstreamPoolOptions) {}

  get(address: string): UpstreamPool {
    let p = this.pools.get(address);
    if (!p) this.pools.set(address, (p = new UpstreamPool(address, this.opts.connectTimeoutMs, this.opts.keepAliveTimeoutMs)));
    return p;
  }

  close(address: string): void {
    const p = this.pools.get(address);
    if (!p) return;
    this.pools.delete(address);
    p.close();
  }

  async destroyAll(): Promise<void> {
    for (const p of this.pools.values()) p.close();
    this.pools.clear();
  }
}
