/**
 * The two options a server that shares its port with node:http needs (statesvc): `route` leaves
 * chosen requests — and every later one on their connection — to node, and `bodyTimeoutMs` cuts a
 * connection whose request body stops arriving (node's requestTimeout).
 */
import { createServer, type Server as HttpServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { IngressRequest, IngressResponse } from './ingress.ts';
import { RawIngress, type RawIngressOptions } from './raw-ingress-server.ts';

let ingress: RawIngress | undefined;
let fallback: HttpServer | undefined;

afterEach(async () => {
  await ingress?.close(100);
  ingress = undefined;
});

function answer(res: IngressResponse, via: string, req: { method?: string; url?: string }): void {
  const body = `${via} ${req.method} ${req.url}`;
  res.writeHead(200, undefined, ['content-type', 'text/plain', 'content-length', String(body.length)]);
  res.end(body);
}

async function start(opts: Partial<RawIngressOptions>): Promise<number> {
  fallback = createServer((req, res) => {
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () => {
      const body = `node ${req.method} ${req.url} ${n}`;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
      res.end(body);
    });
  });
  ingress = new RawIngress({
    fallback,
    keepAliveTimeoutMs: 5_000,
    headersTimeoutMs: 5_000,
    handle: (req: IngressRequest, res: IngressResponse) => {
      if (!req.body) return answer(res, 'raw', req);
      req.body.on('data', () => {});
      req.body.on('end', () => answer(res, 'raw', req));
      req.body.on('error', () => {});
    },
    ...opts,
  });
  return (await ingress.listen(0, '127.0.0.1')).port;
}

/** Sends `bytes` on one connection and collects the answer bodies (Content-Length framed) until `count` or close. */
function exchange(port: number, bytes: string, count: number, timeoutMs = 3_000): Promise<{ bodies: string[]; closed: boolean }> {
  return new Promise((resolve) => {
    const s: Socket = connect(port, '127.0.0.1');
    let text = '';
    const bodies: string[] = [];
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      s.destroy();
      resolve({ bodies, closed });
    };
    const timer = setTimeout(finish, timeoutMs);
    s.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      for (;;) {
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return;
        const len = Number(/content-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
        if (text.length < end + 4 + len) return;
        bodies.push(text.slice(end + 4, end + 4 + len));
        text = text.slice(end + 4 + len);
        if (bodies.length === count) return finish();
      }
    });
    s.on('error', () => {});
    s.on('close', () => {
      closed = true;
      finish();
    });
    s.write(bytes);
  });
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
const put = (path: string, body: string) => `PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

describe('RawIngress route', () => {
  it('serves what the route takes and hands the rest, with its connection, to node', async () => {
    const port = await start({ route: (head) => head.target.startsWith('/fast/') && head.contentLength <= 8 });
    const { bodies } = await exchange(port, get('/fast/a') + put('/fast/b', '12345678') + put('/fast/c', '123456789') + get('/fast/d'), 4);
    // The first two on the raw path; the oversize body goes to node, and the connection stays node's.
    expect(bodies).toEqual(['raw GET /fast/a', 'raw PUT /fast/b', 'node PUT /fast/c 9', 'node GET /fast/d 0']);
    expect(ingress!.handovers.route).toBe(1);
  });

  it('hands a connection over at its first request too, with the bytes already read', async () => {
    const port = await start({ route: (head) => head.method !== 'DELETE' });
    const { bodies } = await exchange(port, `DELETE /x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc` + get('/y'), 2);
    expect(bodies).toEqual(['node DELETE /x 3', 'node GET /y 0']);
  });

  it('without a route takes every request its parser takes', async () => {
    const port = await start({});
    const { bodies } = await exchange(port, get('/a') + put('/b', 'xyz'), 2);
    expect(bodies).toEqual(['raw GET /a', 'raw PUT /b']);
    expect(ingress!.handovers.route).toBeUndefined();
  });
});

describe('RawIngress bodyTimeoutMs', () => {
  it('closes a connection whose body stops arriving, and leaves a complete one alone', async () => {
    const port = await start({ bodyTimeoutMs: 300 });
    const stalled = await exchange(port, `PUT /s HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc`, 1, 3_000);
    expect(stalled).toEqual({ bodies: [], closed: true });
    // A body that arrives in time is answered, and the kept-alive connection is not cut later.
    const ok = await exchange(port, put('/t', 'abcdefghij'), 1);
    expect(ok.bodies).toEqual(['raw PUT /t']);
  });

  it('without it, a stalled body keeps its connection (the router bounds bodies upstream)', async () => {
    const port = await start({});
    const stalled = await exchange(port, `PUT /s HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc`, 1, 1_500);
    expect(stalled).toEqual({ bodies: [], closed: false });
  });
});
