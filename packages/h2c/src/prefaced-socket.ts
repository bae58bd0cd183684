/**
 * A socket whose first bytes were already read, as a Duplex that yields them again. node:http2
 * reads a net socket through its native handle, so bytes put back with `unshift` (as the
 * handover to node:http does) would be lost to it; a plain Duplex is read through JS instead
 * (node wraps it in its JSStreamSocket). Only HTTP/2 connections pay for the extra hop.
 */
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

export function prefacedSocket(socket: Socket, consumed: Buffer): Duplex {
  const d = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _enc, cb) {
      socket.write(chunk, cb);
    },
    final(cb) {
      socket.end(cb);
    },
    destroy(err, cb) {
      socket.destroy(err ?? undefined);
      cb(err);
    },
  });
  if (consumed.length > 0) d.push(consumed);
  socket.on('data', (chunk: Buffer) => {
    if (!d.push(chunk)) socket.pause();
  });
  socket.on('end', () => d.push(null));
  socket.on('error', (err) => d.destroy(err));
  socket.on('close', () => d.destroy());
  return d;
}

