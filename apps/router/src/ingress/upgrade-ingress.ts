/**
 * node:http's 'upgrade' event as an ingress. Both ingresses end here for a WebSocket handshake
 * (the raw one hands every `Upgrade` request to node, request-head-parser.ts), so the data plane
 * routes it exactly like any request — function, tag, sticky key, Admit, activator queue — and
 * only the last step differs: on the worker's 101 the data plane calls `splice`, which writes
 * the 101 head and joins the client socket to the worker's (proxy/socket-splice.ts). Any other
 * answer of the worker (a 4xx refusing the handshake, a 503) is written back as an ordinary
 * response, and the connection closes after it.
 *
 *   'upgrade' ──► framing + upgrade checks ──► 400 + close (upgrade-request.ts, request-framing.ts)
 *             └► UpgradeExchange ──► data plane ──► 101: splice ··· until either side closes
 *                                               └► other status: response, close
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { spliceSockets } from '../proxy/socket-splice.ts';
import { buildResponseHead, httpDate, type IngressHandler, type IngressRequest, type IngressResponse, type ResponseFraming, type ResponseListener, type TunnelClosed, type UpgradeTunnel } from '@orrery/raw-http';
import { checkRequestFraming } from './request-framing.ts';
import { checkUpgradeRequest } from './upgrade-request.ts';

/** Client bytes held before the 101 (a client may send its first frame early); beyond, reading stops. */
export const MAX_EARLY_BYTES = 16 * 1024;

/** The router's own part of the 101 head: the worker's Upgrade and Connection are hop-by-hop and dropped. */
const SWITCH_HEADERS = ['Upgrade', 'websocket', 'Connection', 'Upgrade'];

function ignore(): void {
  // 'close' follows an error and does the cleanup.
}

/** Open upgrade connections of one listener: cut when the router shuts down. */
export class UpgradeConnections {
  private readonly open = new Set<UpgradeExchange>();

  get size(): number {
    return this.open.size;
  }

  add(ex: UpgradeExchange): void {
    this.open.add(ex);
  }

  delete(ex: UpgradeExchange): void {
    this.open.delete(ex);
  }

  destroyAll(): void {
    for (const ex of this.open) ex.destroy();
    this.open.clear();
  }
}

/** One WebSocket handshake: the data plane's request, its response until a 101, and the tunnel after. */
export class UpgradeExchange implements IngressRequest, IngressResponse, UpgradeTunnel, ResponseFraming {
  readonly method: string;
  readonly url: string;
  readonly rawHeaders: string[];
  readonly remoteAddress: string;
  readonly body = null;
  readonly readableDidRead = false;
  readonly upgrade: UpgradeTunnel = this;
  headersSent = false;
  destroyed = false;
  chunked = false;
  hasBody = true;
  close = true;
  private listener: ResponseListener | undefined;
  private early: Buffer[] = [];
  private earlyBytes = 0;
  /** Written by writeHead, sent with the first body bytes or the end. */
  private head: string | undefined;
  private tunnel: { destroy(): void } | undefined;

  constructor(
    req: IncomingMessage,
    private readonly socket: Socket,
    head: Buffer,
    private readonly connections: UpgradeConnections,
  ) {
    this.method = req.method ?? 'GET';
    this.url = req.url ?? '/';
    this.rawHeaders = req.rawHeaders;
    this.remoteAddress = socket.remoteAddress ?? '';
    if (head.length > 0) this.hold(head);
    socket.on('data', this.onEarlyData);
    socket.on('end', this.onEnd);
    socket.on('error', ignore);
    socket.on('close', this.onClose);
    socket.on('drain', this.onDrain);
    connections.add(this);
  }

  setListener(listener: ResponseListener | undefined): void {
    this.listener = listener;
  }

  writeHead(status: number, statusText: string | undefined, headers: string[]): void {
    if (this.headersSent) throw new Error('the response head was already written');
    // Built (and validated) first: on a throw nothing is sent. The connection closes after it.
    this.head = buildResponseHead(status, statusText, headers, { headRequest: false, keepAlive: false, keepAliveTimeoutMs: 0, date: httpDate() }, this);
    this.headersSent = true;
  }

  write(chunk: Buffer): boolean {
    if (this.destroyed) return true;
    if (!this.headersSent) this.writeHead(200, undefined, []);
    return this.send(chunk, false);
  }

  end(lastChunk?: Buffer | string): void {
    if (this.destroyed) return;
    if (!this.headersSent) this.writeHead(200, undefined, []);
    this.send(typeof lastChunk === 'string' ? Buffer.from(lastChunk, 'utf8') : lastChunk, true);
    this.socket.end();
    this.socket.destroySoon();
  }

  destroy(): void {
    this.destroyed = true;
    if (this.tunnel) this.tunnel.destroy();
    else this.socket.destroy();
  }

  splice(statusText: string, headers: string[], upstream: Socket, upstreamHead: Buffer, onClosed: TunnelClosed): void {
    if (this.headersSent || this.destroyed) throw new Error('the client connection has already been answered or closed');
    const head = buildResponseHead(101, statusText || undefined, headers.concat(SWITCH_HEADERS), { headRequest: false, keepAlive: false, keepAliveTimeoutMs: 0, date: httpDate() }, this);
    const s = this.socket;
    s.removeListener('data', this.onEarlyData);
    s.removeListener('end', this.onEnd);
    s.removeListener('drain', this.onDrain);
    this.headersSent = true;
    this.listener = undefined;
    s.write(head, 'latin1');
    // The worker's first frames may have come in the packet of its 101.
    if (upstreamHead.length > 0) s.write(upstreamHead);
    for (const b of this.early) upstream.write(b);
    this.early = [];
    this.tunnel = spliceSockets(s, upstream, () => onClosed.onTunnelClosed());
  }

  private hold(chunk: Buffer): void {
    this.early.push(chunk);
    this.earlyBytes += chunk.length;
    if (this.earlyBytes >= MAX_EARLY_BYTES) this.socket.pause();
  }

  private send(data: Buffer | undefined, end: boolean): boolean {
    const s = this.socket;
    let prefix = this.head ?? '';
    this.head = undefined;
    if (data === undefined || data.length === 0 || !this.hasBody) {
      if (end && this.chunked) prefix += '0\r\n\r\n';
      return prefix.length > 0 ? s.write(prefix, 'latin1') : true;
    }
    if (this.chunked) prefix += `${data.length.toString(16)}\r\n`;
    if (prefix.length > 0) s.write(prefix, 'latin1');
    const ok = s.write(data);
    if (!this.chunked) return ok;
    return s.write(end ? '\r\n0\r\n\r\n' : '\r\n', 'latin1');
  }

  private readonly onEarlyData = (chunk: Buffer): void => {
    this.hold(chunk);
  };

  private readonly onEnd = (): void => {
    // A half-close before the 101 ends the connection, as on the other ingresses.
    this.socket.destroy();
  };

  private readonly onDrain = (): void => {
    this.listener?.onDrain();
  };

  private readonly onClose = (): void => {
    this.connections.delete(this);
    if (this.tunnel) return; // the splice tells the data plane
    this.destroyed = true;
    this.listener?.onClientClose();
  };
}

/** A handshake the router will not forward: a JSON answer, then the connection closes. */
function refuse(socket: Socket, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: message, code });
  socket.on('error', ignore);
  socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nDate: ${httpDate()}\r\nConnection: close\r\n\r\n`, 'latin1');
  socket.end(body, 'utf8');
  socket.destroySoon();
}

/** The listener for node's 'upgrade' event (both ingress modes; data-plane-listener.ts). */
export function upgradeListener(handle: IngressHandler, connections: UpgradeConnections): (req: IncomingMessage, socket: Socket, head: Buffer) => void {
  return (req, socket, head) => {
    const rejected = checkRequestFraming(req.rawHeaders, req.httpVersion) ?? checkUpgradeRequest(req.method ?? '', req.httpVersion, req.rawHeaders);
    if (rejected) {
      refuse(socket, rejected.status, rejected.code, rejected.message);
      return;
    }
    const ex = new UpgradeExchange(req, socket, head, connections);
    handle(ex, ex);
  };
}
