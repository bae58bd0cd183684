import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientHttp2Session } from 'node:http2';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Http2Ingress } from './http2-ingress.ts';
import type { IngressRequest, IngressResponse } from '@orrery/raw-http';
import { HTTP2_PREFACE } from '@orrery/h2c';

/** A TCP listener that reads the preface and hands the socket to the ingress, as the raw ingress does. */
async function listen(ingress: Http2Ingress): Promise<{ server: Server; port: number }> {
  const server = createServer((socket: Socket) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length < HTTP2_PREFACE.length) return;
      socket.removeListener('data', onData);
      socket.pause();
      ingress.accept(socket, head);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function closedWithin(session: ClientHttp2Session, ms: number): Promise<boolean> {
  if (session.closed || session.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    session.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function get(session: ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    stream.on('response', (headers) => resolve(Number(headers[':status'])));
    stream.on('error', reject);
    stream.resume();
    stream.end();
  });
}

describe('Http2Ingress idle sessions', () => {
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanup.splice(0)) c();
  });

  async function start(idleMs: number, handle: (req: IngressRequest, res: IngressResponse) => void) {
    const ingress = new Http2Ingress(handle, idleMs);
    const { server, port } = await listen(ingress);
    cleanup.push(() => {
      ingress.goAway();
      server.close();
    });
    const session = connect(`http://127.0.0.1:${port}`);
    session.on('error', () => {});
    cleanup.push(() => session.destroy());
    return { ingress, session };
  }

  it('closes a session with no open stream after the idle timeout', async () => {
    const { ingress, session } = await start(300, (_req, res) => {
      res.writeHead(200, undefined, ['content-type', 'text/plain']);
      res.end('ok');
    });
    expect(await get(session, '/a')).toBe(200);
    expect(ingress.openSessions).toBe(1);
    expect(await closedWithin(session, 5_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(ingress.openSessions).toBe(0);
  });

  it('keeps a session whose stream is open but quiet, and closes it once the stream ends', async () => {
    let answer: (() => void) | undefined;
    const { ingress, session } = await start(200, (_req, res) => {
      // A quiet long-lived stream (a bidi gRPC call that sends nothing for a while).
      answer = () => {
        res.writeHead(200, undefined, []);
        res.end('late');
      };
    });
    const status = get(session, '/slow');
    // Five idle periods with the stream open: the session stays.
    expect(await closedWithin(session, 1_000)).toBe(false);
    expect(ingress.openSessions).toBe(1);
    answer?.();
    expect(await status).toBe(200);
    expect(await closedWithin(session, 5_000)).toBe(true);
  });
});
