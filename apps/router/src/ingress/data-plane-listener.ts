/**
 * The data plane's port: the raw ingress for the common request, with node:http for the
 * connections it hands over (`raw`, the default), or node:http for everything (`node`).
 * While draining, every answer says Connection: close. WebSocket handshakes reach node's
 * 'upgrade' event in both modes (upgrade-ingress.ts). In `raw` mode a connection that opens
 * with the HTTP/2 preface (h2c prior knowledge) is served by node:http2 (http2/http2-ingress.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { Http2Ingress } from '../http2/http2-ingress.ts';
import { listen } from '../server/listen.ts';
import { type IngressHandler, RawIngress } from '@orrery/raw-http';
import { nodeHttpListener } from './node-http-ingress.ts';
import { UpgradeConnections, upgradeListener } from './upgrade-ingress.ts';

export type IngressMode = 'raw' | 'node';

/**
 * node's keep-alive idle timeout for the data plane, and the raw ingress' (so both behave alike):
 * longer than the 60 s idle timeout of common proxies in front (nginx, cloud load balancers), so
 * they close an idle connection first and never send on one the router is closing.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/**
 * What the raw ingress announces in `Keep-Alive: timeout=` (clients such as undici stop reusing
 * a connection a little before it): short, so a drained router can close its idle connections
 * soon without racing a client's next request.
 */
const KEEP_ALIVE_HINT_MS = 5_000;
/** A request head must be complete within this (slowloris); node's default. */
const HEADERS_TIMEOUT_MS = 60_000;

export class DataPlaneListener {
  private readonly node: Server;
  /** Absent in `node` mode. */
  private readonly raw: RawIngress | undefined;
  private readonly upgrades = new UpgradeConnections();
  private readonly http2: Http2Ingress;
  private draining = false;

  /** `server`: listen and accept on it instead of a plain TCP port — the TLS listener's (tls/tls-listener.ts). */
  constructor(mode: IngressMode, handle: IngressHandler, private readonly server?: NetServer) {
    const nodeListener = nodeHttpListener(handle);
    this.node = createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, requestTimeout: 0 }, (req, res) => {
      if (this.draining) res.setHeader('connection', 'close');
      nodeListener(req, res);
    });
    this.node.headersTimeout = HEADERS_TIMEOUT_MS;
    this.node.on('upgrade', upgradeListener(handle, this.upgrades));
    this.http2 = new Http2Ingress(handle, KEEP_ALIVE_TIMEOUT_MS);
    this.raw = mode === 'raw' ? new RawIngress({ handle, fallback: this.node, http2: this.http2, keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS, keepAliveHintMs: KEEP_ALIVE_HINT_MS, headersTimeoutMs: HEADERS_TIMEOUT_MS, server }) : undefined;
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    if (this.raw) return this.raw.listen(port, host);
    const server = this.server;
    if (!server) return listen(this.node, port, host);
    // node mode behind TLS: node's server serves the decrypted sockets (as https does) and never listens itself.
    server.on('secureConnection', (socket) => this.node.emit('connection', socket));
    this.node.emit('listening');
    return listen(server, port, host);
  }

  /** For `/v1/stats`. */
  view(): { mode: 'raw'; connections: number; open: number; handovers: RawIngress['handovers']; upgraded: number; http2Sessions: number } | { mode: 'node'; upgraded: number } {
    const raw = this.raw;
    const upgraded = this.upgrades.size;
    return raw ? { mode: 'raw', connections: raw.accepted, open: raw.openConnections, handovers: raw.handovers, upgraded, http2Sessions: this.http2.openSessions } : { mode: 'node', upgraded };
  }

  /** From now on every answer says Connection: close (the raw ingress through its flag, node's through ours). */
  startDrain(): void {
    this.draining = true;
    if (this.raw) this.raw.closing = true;
    // GOAWAY: open streams finish, new ones come on a new connection (served until the port closes).
    this.http2.goAway();
  }

  async close(drained: boolean): Promise<void> {
    // An open WebSocket cannot move to another replica, nor be told to (the router does not
    // frame): its TCP connection is cut once the drain is over, and the client reconnects.
    this.upgrades.destroyAll();
    if (this.raw) {
      // After a drain, an idle connection closes only once a client honouring the announced
      // keep-alive has stopped using it: closing one a client is sending on loses a POST.
      const grace = drained ? KEEP_ALIVE_HINT_MS : 0;
      await Promise.all([this.raw.close(grace + 5_000, grace), this.http2.close(5_000)]);
      return;
    }
    this.server?.close();
    await new Promise<void>((r) => {
      this.node.close(() => r());
      this.node.closeIdleConnections();
      setTimeout(() => this.node.closeAllConnections(), 5_000).unref();
    });
  }
}
