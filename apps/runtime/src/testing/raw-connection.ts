/**
 * One TCP connection to a worker, written and read as bytes: for what fetch hides — requests on a
 * connection the worker already answered on, pipelined requests, the Connection header it sends.
 */
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  write(text: string): void;
  /** Resolves once the bytes received so far contain `text`. */
  until(text: string, timeoutMs?: number): Promise<string>;
  /** Everything received, once the worker closed the connection. */
  readonly closed: Promise<string>;
  destroy(): void;
}

export function rawConnection(url: string): RawConnection {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  let received = '';
  const waiters: Array<() => void> = [];
  socket.on('data', (d: Buffer) => {
    received += d.toString('latin1');
    for (const w of waiters.splice(0)) w();
  });
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  return {
    write: (text) => void socket.write(text, 'latin1'),
    until: (text, timeoutMs = 10_000) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${JSON.stringify(text)} within ${timeoutMs} ms; received ${JSON.stringify(received)}`)), timeoutMs);
        const check = () => {
          if (received.includes(text)) {
            clearTimeout(timer);
            resolve(received);
          } else waiters.push(check);
        };
        check();
      }),
    closed,
    destroy: () => socket.destroy(),
  };
}
