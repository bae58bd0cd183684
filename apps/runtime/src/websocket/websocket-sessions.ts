/**
 * The worker's open WebSocket connections, on the `ws` package (no server of its own: node's
 * 'upgrade' event hands the sockets in, worker-server.ts). It completes a handshake the worker
 * has admitted, runs the function's handler, keeps peers honest with a heartbeat, and closes
 * every connection with 1001 (going away) when the worker drains.
 *
 * Heartbeat: every `heartbeatMs` each connection is pinged; one that has not answered the
 * previous ping (browsers and `ws` answer by themselves) is terminated. A peer that vanished
 * without a close — a dropped NAT entry, a killed laptop — would otherwise hold its concurrency
 * slot forever, and with containerConcurrency 1 that is the whole worker.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '@orrery/log';
import type { WebSocket, WebSocketServer } from 'ws';

export const HEARTBEAT_MS = 30_000;
/** RFC 6455 §7.4.1: the endpoint is going away (server shutdown). */
export const CLOSE_GOING_AWAY = 1001;
/** RFC 6455 §7.4.1: the server met a condition it did not expect (the handler threw). */
export const CLOSE_INTERNAL_ERROR = 1011;

export interface WebSocketSessionsOptions {
  /** Largest message accepted; a larger one closes the connection with 1009 (message too big). */
  maxPayloadBytes: number;
  heartbeatMs?: number;
  log: Logger;
}

function ignore(): void {
  // 'close' follows a socket error and does the cleanup.
}

export class WebSocketSessions {
  /**
   * Made on the first handshake: evaluating `ws` (and the node modules it requires) cost ~4 ms
   * of every worker's start, and most functions never take a WebSocket (docs/performance.md "coldstart").
   */
  private wss: Promise<WebSocketServer> | undefined;
  /** Open connections, and whether each answered the last ping. */
  private readonly open = new Map<WebSocket, { alive: boolean }>();
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly heartbeatMs: number;

  constructor(private readonly opts: WebSocketSessionsOptions) {
    this.heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
  }

  private server(): Promise<WebSocketServer> {
    // perMessageDeflate stays off (ws' server default): inflating is where memory bombs live.
    return (this.wss ??= import('ws').then(({ WebSocketServer }) => new WebSocketServer({ noServer: true, clientTracking: false, maxPayload: this.opts.maxPayloadBytes, perMessageDeflate: false })));
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * Completes an admitted handshake and runs `run` on the open connection. Resolves when the
   * connection has closed, with 101 when it had been switched, or 400 when `ws` refused the
   * handshake itself (a missing or malformed Sec-WebSocket-Key or -Version; it answered 400).
   */
  accept(req: IncomingMessage, socket: Socket, head: Buffer, run: (ws: WebSocket) => void | Promise<void>, log: Logger): Promise<101 | 400> {
    return new Promise((resolve) => {
      let switched = false;
      if (socket.closed || socket.destroyed) {
        resolve(400);
        return;
      }
      socket.once('close', () => resolve(switched ? 101 : 400));
      socket.on('error', ignore);
      void this.server().then((wss) => wss.handleUpgrade(req, socket, head, (ws) => {
        switched = true;
        this.track(ws);
        // Without a listener an 'error' (a protocol violation, a message over maxPayload) would
        // be thrown; ws closes the connection after it with the matching code.
        ws.on('error', (err) => log.debug('websocket error', { error: err.message }));
        const fail = (err: unknown) => {
          log.error('websocket handler threw', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
          ws.close(CLOSE_INTERNAL_ERROR, 'the function failed');
        };
        try {
          Promise.resolve(run(ws)).catch(fail);
        } catch (err) {
          fail(err);
        }
      })).catch((err: unknown) => {
        log.error('websocket server unavailable', { error: (err as Error).message });
        socket.destroy();
      });
    });
  }

  /** Drain: a close frame with `code` to every open connection (each closes once its peer answers). */
  closeAll(code: number, reason: string): void {
    for (const ws of this.open.keys()) ws.close(code, reason);
  }

  /** After the drain timeout: whatever is still open is cut. */
  terminateAll(): void {
    for (const ws of this.open.keys()) ws.terminate();
    this.stopHeartbeat();
  }

  private track(ws: WebSocket): void {
    const state = { alive: true };
    this.open.set(ws, state);
    ws.on('pong', () => (state.alive = true));
    ws.once('close', () => {
      this.open.delete(ws);
      if (this.open.size === 0) this.stopHeartbeat();
    });
    if (!this.heartbeat && this.heartbeatMs > 0) {
      this.heartbeat = setInterval(this.beat, this.heartbeatMs);
      this.heartbeat.unref();
    }
  }

  private readonly beat = (): void => {
    for (const [ws, state] of this.open) {
      if (!state.alive) {
        this.opts.log.info('websocket peer did not answer a ping; connection terminated', { heartbeatMs: this.heartbeatMs });
        ws.terminate();
        continue;
      }
      state.alive = false;
      ws.ping();
    }
  };

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
