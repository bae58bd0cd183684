/**
 * The worker's port serves HTTP/1.1 and HTTP/2 cleartext with prior knowledge on one listener:
 * the first bytes of each connection decide (@orrery/h2c sniffProtocol). HTTP/1.1 connections go to the
 * node:http server with the bytes put back (unshift; node's parser reads through JS), HTTP/2
 * ones to the node:http2 server through prefacedSocket (its native reader would miss them).
 */
import type { Server as HttpServer } from 'node:http';
import type { Http2Server } from 'node:http2';
import { createServer, type Server, type Socket } from 'node:net';
import { prefacedSocket, sniffProtocol } from '@orrery/h2c';

/** A connection that sends fewer than 4 bytes in this long is closed (node's headersTimeout covers the rest). */
const SNIFF_TIMEOUT_MS = 60_000;

/** `http2` is called on the first HTTP/2 connection (the worker makes its server then: see worker-server.ts). */
export function protocolSniffingServer(http1: HttpServer, http2: () => Http2Server): Server {
  // The same socket options node's http server uses (it ends up owning most sockets).
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (socket: Socket) => {
    let seen: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), SNIFF_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
      const kind = sniffProtocol(seen);
      if (kind === 'more') return;
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      if (kind === 'h2') {
        http2().emit('connection', prefacedSocket(socket, seen));
        return;
      }
      socket.unshift(seen);
      http1.emit('connection', socket);
      socket.resume();
    };
    const onClose = () => clearTimeout(timer);
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', () => socket.destroy());
  });
  // node tracks connections (closeIdleConnections, headersTimeout) from its 'listening' event; http1 never listens itself.
  server.once('listening', () => http1.emit('listening'));
  return server;
}
