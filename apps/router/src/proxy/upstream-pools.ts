/**
 * One keep-alive connection pool per worker address (http1-upstream.ts), and one h2c session
 * for the gRPC streams to it (http2/http2-upstream.ts). Pools of addresses
 * that left every snapshot close: idle sockets at once, busy ones when their exchange ends.
 */
import { Http2UpstreamSession } from '../http2/http2-upstream.ts';
import { UpstreamPool } from './http1-upstream.ts';

export interface UpstreamPoolOptions {
  connectTimeoutMs: number;
  /** Idle sockets older than this are not reused (below node's default 5 s server keep-alive). */
  keepAliveTimeoutMs: number;
}

export class UpstreamPools {
  private readonly pools = new Map<string, UpstreamPool>();
  private readonly sessions = new Map<string, Http2UpstreamSession>();

  constructor(private readonly opts: UpstreamPoolOptions) {}

  get(address: string): UpstreamPool {
    let p = this.pools.get(address);
    if (!p) this.pools.set(address, (p = new UpstreamPool(address, this.opts.connectTimeoutMs, this.opts.keepAliveTimeoutMs)));
    return p;
  }

  http2(address: string): Http2UpstreamSession {
    let s = this.sessions.get(address);
    if (!s) this.sessions.set(address, (s = new Http2UpstreamSession(address, this.opts.connectTimeoutMs)));
    return s;
  }

  close(address: string): void {
    const s = this.sessions.get(address);
    if (s) {
      this.sessions.delete(address);
      s.close();
    }
    const p = this.pools.get(address);
    if (!p) return;
    this.pools.delete(address);
    p.close();
  }

  async destroyAll(): Promise<void> {
    for (const p of this.pools.values()) p.close();
    this.pools.clear();
    for (const s of this.sessions.values()) s.close();
    this.sessions.clear();
  }
}
