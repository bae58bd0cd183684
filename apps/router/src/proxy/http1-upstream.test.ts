import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, Socket, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamPool, type UpstreamHandler, type UpstreamRequest } from './http1-upstream.ts';
import { scanRequestHead } from './request-head.ts';

interface Result {
  status: number;
  statusText: string;
  headers: string[];
  body: string;
  error?: Error & { code?: string };
}

function run(pool: UpstreamPool, req: Partial<UpstreamRequest>): Promise<Result> {
  return new Promise((resolve) => {
    const r: Result = { status: 0, statusText: '', headers: [], body: '' };
    const h: UpstreamHandler = {
      onConnect() {},
      onHeaders(status, headers, _resume, statusText) {
        r.status = status;
        r.headers = headers;
        r.statusText = statusText;
        return true;
      },
      onData(chunk) {
        r.body += chunk.toString();
        return true;
      },
      onComplete(_t, last) {
        if (last) r.body += last.toString();
        resolve(r);
      },
      onError(err) {
        r.error = err;
        resolve(r);
      },
    };
    pool.dispatch({ method: 'GET', path: '/', headers: [], body: null, bodyHasLength: false, timeoutMs: 5_000, ...req }, h);
  });
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    await new Promise((r) => s.close(r));
  }
});

/** A raw TCP server: `reply(requestText, socket)` writes whatever bytes the test wants. */
async function raw(reply: (request: string, socket: Socket) => void): Promise<string> {
  const sockets = new Set<Socket>();
  const s = createNetServer((sock) => {
    sockets.add(sock);
    let buf = '';
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end >= 0) {
        const text = buf;
        buf = '';
        reply(text, sock);
      }
    });
    sock.on('error', () => {});
  });
  const origClose = s.close.bind(s);
  s.close = ((cb?: (err?: Error) => void) => {
    for (const so of sockets) so.destroy();
    return origClose(cb);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `127.0.0.1:${(s.address() as AddressInfo).port}`;
}

async function writeSlowly(sock: Socket, text: string): Promise<void> {
  for (const ch of text) {
    sock.write(ch);
    await new Promise((r) => setImmediate(r));
  }
}

describe('http1 upstream client', () => {
  it('decodes chunked bodies split at every byte, drops hop-by-hop headers and reuses the connection', async () => {
    let connections = 0;
    const address = await raw((_req, sock) => {
      void writeSlowly(sock, 'HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive, X-Drop\r\nX-Drop: 1\r\nKeep-Alive: timeout=5\r\n\r\n5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n');
    });
    const s = servers.at(-1)!;
    s.on('connection', () => connections++);
    const pool = new UpstreamPool(address, 1000, 4000);
    const a = await run(pool, {});
    expect(a.error).toBeUndefined();
    expect(a.status).toBe(201);
    expect(a.statusText).toBe('Created');
    expect(a.body).toBe('hello, world');
    expect(a.headers).toEqual(['Content-Type', 'text/plain']);
    const b = await run(pool, {});
    expect(b.body).toBe('hello, world');
    expect(connections).toBe(1);
    pool.close();
  });

  it('skips 100 Continue, handles 204/HEAD without bodies and reads until close without a length', async () => {
    const address = await raw((req, sock) => {
      if (req.startsWith('HEAD')) sock.write('HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n');
      else if (req.includes('/nocontent')) sock.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n');
      else sock.end('HTTP/1.0 200 OK\r\n\r\nuntil-close body');
    });
    const pool = new UpstreamPool(address, 1000, 4000);
    expect(await run(pool, { method: 'HEAD' })).toMatchObject({ status: 200, body: '', headers: ['Content-Length', '99'] });
    expect(await run(pool, { path: '/nocontent' })).toMatchObject({ status: 204, body: '' });
    expect(await run(pool, { path: '/close' })).toMatchObject({ status: 200, body: 'until-close body' });
    pool.close();
  });

  it('streams request bodies with a length and chunk-encodes those without', async () => {
    const s = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.end(JSON.stringify({ body, te: req.headers['transfer-encoding'] ?? null, host: req.headers.host })));
    });
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const address = `127.0.0.1:${(s.address() as AddressInfo).port}`;
    const pool = new UpstreamPool(address, 1000, 4000);
    const chunked = await run(pool, { method: 'POST', body: Readable.from([Buffer.from('ab'), Buffer.from('cd')]), bodyHasLength: false });
    expect(JSON.parse(chunked.body)).toEqual({ body: 'abcd', te: 'chunked', host: address });
    const sized = await run(pool, { method: 'PUT', headers: ['content-length', '3'], body: Readable.from([Buffer.from('xyz')]), bodyHasLength: true });
    expect(JSON.parse(sized.body)).toEqual({ body: 'xyz', te: null, host: address });
    pool.close();
    s.closeAllConnections();
  });

  it.each([
    ['text, UTF-8 encoded', JSON.stringify({ name: 'café' })],
    ['bytes (a held body replayed)', Buffer.from(JSON.stringify({ name: 'café' }))],
  ])('a whole body given as %s goes out with the head in the same write', async (_what, wholeBody) => {
    let firstRead = '';
    const address = await raw((request, sock) => {
      firstRead = request;
      sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    const pool = new UpstreamPool(address, 1000, 4000);
    const r = await run(pool, { method: 'POST', headers: ['content-length', String(Buffer.byteLength(wholeBody))], wholeBody, bodyHasLength: true });
    expect(r).toMatchObject({ status: 200, body: 'ok' });
    // raw() hands over the bytes up to the head's end plus what came with them: the body came in the same read.
    const [head, body] = firstRead.split('\r\n\r\n');
    expect(head).toMatch(/^POST \/ HTTP\/1\.1\r\n/);
    expect(head).toContain(`content-length: ${Buffer.byteLength(wholeBody)}`);
    expect(head).not.toContain('transfer-encoding');
    expect(Buffer.from(body!, 'latin1').toString('utf8')).toBe(JSON.stringify({ name: 'café' }));
    pool.close();
  });

  it('rejects conflicting Content-Length and lets chunked framing win over Content-Length', async () => {
    const address = await raw((req, sock) => {
      if (req.includes('/conflict')) sock.write('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd');
      else sock.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
    });
    const pool = new UpstreamPool(address, 1000, 4000);
    expect((await run(pool, { path: '/conflict' })).error?.code).toBe('ORRERY_BAD_RESPONSE');
    const both = await run(pool, { path: '/both' });
    expect(both).toMatchObject({ status: 200, body: 'abc', headers: [] });
    pool.close();
  });

  it('a reused connection reset before any answer is sent again fresh only for an idempotent method: a bodiless POST fails instead of running twice', async () => {
    // The first request on each connection is answered; the second is read and then the
    // connection is reset, as a worker that died after it started on the request would.
    const seen: string[] = [];
    const address = await raw((req, sock) => {
      const line = req.slice(0, req.indexOf('\r\n'));
      seen.push(line);
      const n = ((sock as Socket & { served?: number }).served = ((sock as Socket & { served?: number }).served ?? 0) + 1);
      if (n === 1) sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      else sock.resetAndDestroy();
    });
    const pool = new UpstreamPool(address, 1000, 4000);
    expect((await run(pool, { method: 'GET', path: '/warm' })).status).toBe(200);
    // GET on the reused connection: reset, then sent again on a fresh one and answered.
    const get = await run(pool, { method: 'GET', path: '/again' });
    expect(get.error).toBeUndefined();
    expect(get.status).toBe(200);
    expect(seen.filter((l) => l === 'GET /again HTTP/1.1')).toHaveLength(2);
    // The fresh connection is now idle and reused: a POST on it is reset and not sent again.
    const post = await run(pool, { method: 'POST', path: '/increment' });
    expect(post.error).toBeDefined();
    expect(seen.filter((l) => l === 'POST /increment HTTP/1.1')).toHaveLength(1);
    pool.close();
  });

  it('a kept-alive connection the worker closed while idle is never written to: the next request, even a POST with a body, goes out on a fresh one', async () => {
    // The worker answers once, then closes the idle connection (its keep-alive timeout, or one
    // that fires at once on SIGCONT after a freeze). Between the FIN's 'end' and the socket's
    // 'close' node answers any write with EPIPE "This socket has been ended by the other party"
    // and sends nothing: a request sent then failed with 502 although it never left the router.
    // The request is sent right when the router's socket emits 'end', inside that window.
    const connections: number[] = [];
    const address = await raw((req, sock) => {
      const n = ((sock as Socket & { served?: number }).served = ((sock as Socket & { served?: number }).served ?? 0) + 1);
      if (n === 1) connections.push(sock.remotePort!);
      const body = req.slice(req.indexOf('\r\n\r\n') + 4);
      sock.write(`HTTP/1.1 200 OK\r\nContent-Length: ${2 + body.length}\r\n\r\nok${body}`);
      if (req.includes('/warm')) setTimeout(() => sock.end(), 5);
    });
    const port = Number(address.slice(address.lastIndexOf(':') + 1));
    const pool = new UpstreamPool(address, 1000, 4000);
    expect((await run(pool, { method: 'GET', path: '/warm' })).status).toBe(200);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- restored below, called with the socket as this
    const emit = Socket.prototype.emit;
    let post: Promise<Result> | undefined;
    const sawEnd = new Promise<void>((resolve) => {
      Socket.prototype.emit = function (this: Socket, event: string | symbol, ...args: unknown[]) {
        const toWorker = this.remotePort === port; // read first: a listener may destroy the socket
        const r = Reflect.apply(emit, this, [event, ...args]) as boolean;
        if (event === 'end' && toWorker && !post) {
          post = run(pool, { method: 'POST', path: '/increment', headers: ['content-length', '3'], body: Readable.from([Buffer.from('xyz')]), bodyHasLength: true });
          resolve();
        }
        return r;
      } as typeof emit;
    });
    try {
      await sawEnd;
    } finally {
      Socket.prototype.emit = emit;
    }
    const answer = await post!;
    expect(answer.error?.message).toBeUndefined();
    expect(answer).toMatchObject({ status: 200, body: 'okxyz' });
    expect(connections, 'the POST went out on a second connection').toHaveLength(2);
    pool.close();
  });

  it('reports refused connections and header timeouts with stable codes', async () => {
    const probe = createNetServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const dead = `127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((r) => probe.close(r));
    const refused = await run(new UpstreamPool(dead, 1000, 4000), {});
    expect(refused.error?.code).toBe('ECONNREFUSED');
    const silent = await raw(() => {});
    const timedOut = await run(new UpstreamPool(silent, 1000, 4000), { timeoutMs: 300 });
    expect(timedOut.error?.code).toBe('ORRERY_HEADERS_TIMEOUT');
  });
});

describe('http1 upstream client: upgrade requests (dispatchUpgrade)', () => {
  const upgradeHeaders = ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version', '13', 'Connection', 'Upgrade', 'Upgrade', 'websocket'];

  it('a 101 hands the socket over with its headers (hop-by-hop dropped), the Upgrade value and the bytes after the head', async () => {
    let seen = '';
    const address = await raw((req, sock) => {
      seen = req;
      // The first frame arrives in the same packet as the 101 head.
      sock.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\x81\x02hi', 'latin1');
      sock.on('data', (d) => sock.write(d)); // then echo whatever comes
    });
    const pool = new UpstreamPool(address, 1000, 4000);
    const switched = await new Promise<{ statusText: string; headers: string[]; protocol: string | undefined; head: Buffer; socket: Socket }>((resolve, reject) => {
      pool.dispatchUpgrade(
        { method: 'GET', path: '/chat', headers: upgradeHeaders, body: null, bodyHasLength: false, timeoutMs: 5_000 },
        {
          onConnect() {},
          onHeaders: () => (reject(new Error('onHeaders on a 101')), false),
          onData: () => true,
          onComplete: () => reject(new Error('onComplete on a 101')),
          onError: reject,
          onUpgrade: (statusText, headers, protocol, socket, head) => resolve({ statusText, headers, protocol, head, socket }),
        },
      );
    });
    expect(seen).toMatch(/^GET \/chat HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n$/);
    expect(switched).toMatchObject({ statusText: 'Switching Protocols', protocol: 'websocket', headers: ['Sec-WebSocket-Accept', 's3pPLMBiTxaQ9kYGzzhZRbK+xOo='] });
    expect(switched.head.toString('latin1')).toBe('\x81\x02hi');
    // The socket is the handler's now: no listener of the client reads it.
    expect(switched.socket.listenerCount('data')).toBe(0);
    const echoed = new Promise<string>((r) => switched.socket.once('data', (d: Buffer) => r(d.toString())));
    switched.socket.write('raw bytes');
    expect(await echoed).toBe('raw bytes');
    switched.socket.destroy();
    pool.close();
  });

  it('any other answer is an ordinary response, and that connection is never reused', async () => {
    let connections = 0;
    const address = await raw((_req, sock) => sock.write('HTTP/1.1 400 Bad Request\r\nContent-Length: 7\r\nConnection: keep-alive\r\n\r\nbad key'));
    servers.at(-1)!.on('connection', () => connections++);
    const pool = new UpstreamPool(address, 1000, 4000);
    const refusal = await new Promise<Result>((resolve) => {
      const r: Result = { status: 0, statusText: '', headers: [], body: '' };
      pool.dispatchUpgrade(
        { method: 'GET', path: '/', headers: upgradeHeaders, body: null, bodyHasLength: false, timeoutMs: 5_000 },
        {
          onConnect() {},
          onHeaders(status, headers) {
            r.status = status;
            r.headers = headers;
            return true;
          },
          onData: () => true,
          onComplete(_t, last) {
            r.body = last?.toString() ?? '';
            resolve(r);
          },
          onError(err) {
            r.error = err;
            resolve(r);
          },
          onUpgrade: () => undefined,
        },
      );
    });
    expect(refusal).toMatchObject({ status: 400, body: 'bad key', headers: ['Content-Length', '7'] });
    expect((await run(pool, {})).status).toBe(400);
    expect(connections).toBe(2);
    pool.close();
  });

  it('a 101 to an ordinary request is not a switch: its bytes are the body, read until close', async () => {
    const address = await raw((_req, sock) => sock.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\nframes'));
    const pool = new UpstreamPool(address, 1000, 4000);
    expect(await run(pool, {})).toMatchObject({ status: 101, body: 'frames', headers: [] });
    pool.close();
  });
});

describe('scanRequestHead', () => {
  it('keeps end-to-end headers and takes out hop-by-hop ones, Host, Expect and the forwarding headers', () => {
    const h = scanRequestHead(
      [
        ...['Host', 'a.example', 'Orrery-Tag', 'blue', 'X-Session', 's1', 'Connection', 'keep-alive, X-Private', 'X-Private', 'p', 'Keep-Alive', '5', 'Expect', '100-continue'],
        ...['X-Forwarded-For', '1.1.1.1', 'X-Forwarded-For', '2.2.2.2', 'X-Forwarded-Proto', 'https', 'X-Forwarded-Proto', 'http', 'X-Forwarded-Host', 'h1', 'x-forwarded-host', 'h2'],
        ...['Forwarded', 'for=1.1.1.1', 'forwarded', 'for=2.2.2.2', 'X-Real-IP', '1.1.1.1', 'x-real-ip', '3.3.3.3', 'Content-Length', '3', 'Accept', '*/*'],
      ],
      'x-session',
    );
    expect(h).toMatchObject({
      host: 'a.example',
      tag: 'blue',
      sticky: 's1',
      forwardedFor: '1.1.1.1, 2.2.2.2',
      forwardedProto: 'https',
      forwardedHost: 'h1',
      forwarded: 'for=1.1.1.1, for=2.2.2.2',
      realIp: '1.1.1.1',
      contentLength: '3',
      chunked: false,
    });
    expect(h.forward).toEqual(['Orrery-Tag', 'blue', 'X-Session', 's1', 'Content-Length', '3', 'Accept', '*/*']);
  });
});
