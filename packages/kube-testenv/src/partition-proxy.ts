import { connect, createServer, type Server, type Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/**
 * A TCP proxy in front of the API server that a test can cut: `partition()` drops every open
 * connection and refuses new ones until `heal()`, as a broken network between one client and the
 * control plane would. TLS passes through untouched (the API server's certificate names
 * 127.0.0.1), so the client still talks to the real server.
 */
export class PartitionProxy {
  private readonly sockets = new Set<Socket>();
  private cut = false;
  private readonly server: Server;
  port = 0;

  private constructor(private readonly target: URL) {
    this.server = createServer((client) => this.forward(client));
  }

  static async start(upstream: string): Promise<PartitionProxy> {
    const proxy = new PartitionProxy(new URL(upstream));
    await new Promise<void>((r) => proxy.server.listen(0, '127.0.0.1', r));
    const addr = proxy.server.address();
    proxy.port = typeof addr === 'object' && addr ? addr.port : 0;
    return proxy;
  }

  private forward(client: Socket): void {
    if (this.cut) {
      client.destroy();
      return;
    }
    const up = connect(Number(this.target.port), this.target.hostname);
    for (const s of [client, up]) {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        up.destroy();
      });
    }
    client.pipe(up).pipe(client);
  }

  /** The same credentials as `kc`, pointed at this proxy. */
  kubeConfig(kc: KubeConfig): KubeConfig {
    const cluster = kc.getCurrentCluster()!;
    const user = kc.getCurrentUser()!;
    const out = new KubeConfig();
    out.loadFromOptions({
      clusters: [{ ...cluster, name: 'via-proxy', server: `https://127.0.0.1:${this.port}` }],
      users: [user],
      contexts: [{ name: 'via-proxy', cluster: 'via-proxy', user: user.name }],
      currentContext: 'via-proxy',
    });
    return out;
  }

  partition(): void {
    this.cut = true;
    for (const s of this.sockets) s.destroy();
  }

  heal(): void {
    this.cut = false;
  }

  async close(): Promise<void> {
    this.partition();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
