/** Does a Redis answer PING at host:port? (The routers share tables through it when it does.) */
import { connect } from 'node:net';

export function redisAnswers(host = '127.0.0.1', port = 6379, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (c: Buffer) => done(c.toString().startsWith('+PONG')));
  });
}
