/** Does a Redis answer PING at host:port? (The routers share tables through it when it does.) */
import { connect } from 'node:net';

const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;

/** AUTH (when the URL has a password, ACL user included) then PING, as RESP arrays. */
export function probeCommands(auth?: { username?: string; password: string }): string {
  const authCmd = auth ? (auth.username ? `*3\r\n${bulk('AUTH')}${bulk(auth.username)}${bulk(auth.password)}` : `*2\r\n${bulk('AUTH')}${bulk(auth.password)}`) : '';
  return `${authCmd}*1\r\n${bulk('PING')}`;
}

/** `authRequiredCounts`: a Redis that answers NOAUTH is up (for a status check that has no password). */
export function redisAnswers(
  host = '127.0.0.1',
  port = 6379,
  timeoutMs = 1_000,
  auth?: { username?: string; password: string },
  o: { authRequiredCounts?: boolean } = {},
): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let got = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write(probeCommands(auth)));
    socket.on('data', (c: Buffer) => {
      got += c.toString();
      if (got.includes('+PONG')) done(!auth || got.startsWith('+OK'));
      else if (o.authRequiredCounts && got.startsWith('-NOAUTH')) done(true);
      else if (got.startsWith('-') || (auth && got.includes('\r\n-'))) done(false);
    });
  });
}
