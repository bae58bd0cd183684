/**
 * The raw ingress in-process, with a small handler instead of the data plane: connection
 * behaviour (keep-alive, close, pipelining, timeouts, aborts, backpressure), response framing,
 * and the handover of everything unusual to node:http.
 */
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { header, ResponseReader, type ReadResponse, type ReadResult } from '../testing/response-reader.ts';
import { type IngressRequest, type IngressResponse, RawExchange, RawIngress } from '@orrery/raw-http';
import { nodeHttpListener } from './node-http-ingress.ts';

interface Seen {
  via: 'raw' | 'node';
  method: string;
  url: string;
  rawHeaders: string[];
}

const seen: Seen[] = [];
const events: string[] = [];
let active = 0;
let maxActive = 0;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function readBody(req: IngressRequest, done: (body: Buffer) => void): void {
  if (!req.body) return done(Buffer.alloc(0));
  const parts: Buffer[] = [];
  req.body.on('data', (c: Buffer) => parts.push(c));
  req.body.on('end', () => done(Buffer.concat(parts)));
  req.body.on('error', (err: Error) => events.push(`body error ${req.url} ${err.message}`));
}

/** Paths pick a behaviour; see each case. */
function handler(req: IngressRequest, res: IngressResponse): void {
  seen.push({ via: req instanceof RawExchange ? 'raw' : 'node', method: req.method, url: req.url, rawHeaders: req.rawHeaders });
  active++;
  maxActive = Math.max(maxActive, active);
  let drains = 0;
  res.setListener({
    onClientClose: () => {
      events.push(`client closed ${req.url}`);
      active--;
    },
    onDrain: () => {
      drains++;
      pump?.();
    },
  });
  let pump: (() => void) | undefined;
  const finish = (status: number, headers: string[], body?: string | Buffer): void => {
    res.setListener(undefined);
    active--;
    res.writeHead(status, undefined, headers);
    res.end(body);
  };
  const url = new URL(req.url, 'http://x');
  const [, what, arg] = url.pathname.split('/');
  switch (what) {
    case 'echo':
      readBody(req, (body) => {
        const text = JSON.stringify({ method: req.method, url: req.url, rawHeaders: req.rawHeaders, body: body.toString('latin1') });
        setTimeout(() => finish(200, ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(text))], text), Number(url.searchParams.get('delay') ?? 0));
      });
      return;
    case 'status':
      // No Content-Length: the ingress frames (chunked, or nothing for HEAD/1xx/204/304).
      readBody(req, () => {
        res.setListener(undefined);
        active--;
        res.writeHead(Number(arg), undefined, ['x-status', arg!]);
        res.write(Buffer.from('part1-'));
        res.end(Buffer.from('part2'));
      });
      return;
    case 'length':
      readBody(req, () => finish(Number(arg ?? 200), ['content-length', '5'], 'hello'));
      return;
    case 'early':
      // Answers without reading the body (like a 413).
      finish(413, ['content-length', '4'], 'nope');
      return;
    case 'hold':
      // Never answers; reads the body if any.
      readBody(req, () => {});
      return;
    case 'big': {
      // Streams `arg` bytes in 64 KiB writes, waiting for drain: response backpressure.
      const total = Number(arg);
      let sent = 0;
      res.writeHead(200, undefined, ['content-length', String(total)]);
      pump = () => {
        while (sent < total) {
          const n = Math.min(65_536, total - sent);
          sent += n;
          if (sent === total) {
            res.setListener(undefined);
            active--;
            events.push(`big drains ${drains}`);
            res.end(Buffer.alloc(n, 0x61));
            return;
          }
          if (!res.write(Buffer.alloc(n, 0x61))) return;
        }
      };
      pump();
      return;
    }
    case 'stream': {
      // A streamed response whose first bytes come later (Server-Sent Events).
      res.writeHead(200, undefined, ['content-type', 'text/event-stream']);
      setTimeout(() => {
        res.setListener(undefined);
        active--;
        res.end(Buffer.from('data: late\n\n'));
      }, 300);
      return;
    }
    case 'lazy': {
      // Attaches to the body only after a while (a request waiting in the activator queue).
      setTimeout(() => readBody(req, (body) => finish(200, ['content-length', String(body.length)], body)), 300);
      return;
    }
    default:
      finish(404, ['content-length', '0']);
  }
}

const started: RawIngress[] = [];
async function start(opts: { keepAliveTimeoutMs?: number; keepAliveHintMs?: number; headersTimeoutMs?: number } = {}): Promise<{ ingress: RawIngress; port: number }> {
  const fallback = createServer({ keepAliveTimeout: opts.keepAliveTimeoutMs ?? 65_000, requestTimeout: 0 }, nodeHttpListener(handler));
  fallback.headersTimeout = opts.headersTimeoutMs ?? 60_000;
  const ingress = new RawIngress({ handle: handler, fallback, keepAliveTimeoutMs: opts.keepAliveTimeoutMs ?? 65_000, ...(opts.keepAliveHintMs ? { keepAliveHintMs: opts.keepAliveHintMs } : {}), headersTimeoutMs: opts.headersTimeoutMs ?? 60_000 });
  started.push(ingress);
  const a = await ingress.listen(0, '127.0.0.1');
  return { ingress, port: a.port };
}

const readers: ResponseReader[] = [];
async function open(port: number): Promise<ResponseReader> {
  const r = await ResponseReader.open(port);
  readers.push(r);
  return r;
}

function ok(r: ReadResult): ReadResponse {
  if (typeof r === 'string') throw new Error(`expected a response, got ${r}`);
  return r;
}

afterEach(async () => {
  for (const r of readers.splice(0)) r.close();
  await Promise.all(started.splice(0).map((i) => i.close(100)));
  seen.length = 0;
  events.length = 0;
  active = 0;
  maxActive = 0;
});

const GET = (path: string, extra = ''): string => `GET ${path} HTTP/1.1\r\nHost: t\r\n${extra}\r\n`;

describe('raw ingress: connections', () => {
  it('keeps a connection alive across requests and frames the head as node does', async () => {
    const { ingress, port } = await start();
    const c = await open(port);
    for (let i = 0; i < 3; i++) {
      c.write(GET(`/echo?i=${i}`, 'X-A:  b \r\n'));
      const r = ok(await c.next());
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body.toString())).toEqual({ method: 'GET', url: `/echo?i=${i}`, rawHeaders: ['Host', 't', 'X-A', 'b'], body: '' });
      const lines = r.head.split('\r\n');
      expect(lines[0]).toBe('HTTP/1.1 200 OK');
      expect(lines.slice(1).map((l) => l.split(':')[0])).toEqual(['content-type', 'content-length', 'Date', 'Connection', 'Keep-Alive']);
      expect(header(r, 'connection')).toBe('keep-alive');
      expect(header(r, 'keep-alive')).toBe('timeout=65');
      expect(header(r, 'date')).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
    }
    expect(ingress.accepted).toBe(1);
    expect(seen.every((s) => s.via === 'raw')).toBe(true);
    expect(c.closed).toBe(false);
  });

  it('sends the head of a response whose body comes later at once (not with the first bytes), and then the body', async () => {
    const { port } = await start();
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
    await new Promise((r) => socket.once('connect', r));
    const t0 = Date.now();
    socket.write(GET('/stream'));
    while (!got.includes('\r\n\r\n') && Date.now() - t0 < 2000) await sleep(10);
    expect(Date.now() - t0).toBeLessThan(250);
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\ncontent-type: text\/event-stream\r\n/);
    expect(got).not.toContain('data: late');
    while (!got.endsWith('0\r\n\r\n') && Date.now() - t0 < 3000) await sleep(10);
    expect(got.slice(got.indexOf('\r\n\r\n') + 4)).toBe('c\r\ndata: late\n\n\r\n0\r\n\r\n');
    socket.destroy();
  });

  it('answers Connection: close with Connection: close and closes after the response', async () => {
    const { port } = await start();
    const c = await open(port);
    c.write(GET('/length', 'Connection: close\r\n'));
    const r = ok(await c.next());
    expect(r.body.toString()).toBe('hello');
    expect(header(r, 'connection')).toBe('close');
    expect(header(r, 'keep-alive')).toBeUndefined();
    expect(await c.waitClosed()).toBe(true);
  });

  it('runs pipelined requests strictly one after another, answers in order, and parses a head split at any byte', async () => {
    const { port } = await start();
    const c = await open(port);
    // The first is the slowest: a server that overlapped them would answer out of order.
    c.write(GET('/echo?n=1&delay=60') + 'POST /echo?n=2&delay=30 HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc' + GET('/echo?n=3'));
    const bodies = [];
    for (let i = 0; i < 3; i++) bodies.push(JSON.parse(ok(await c.next()).body.toString()) as { url: string; body: string });
    expect(bodies.map((b) => b.url)).toEqual(['/echo?n=1&delay=60', '/echo?n=2&delay=30', '/echo?n=3']);
    expect(bodies[1]!.body).toBe('abc');
    expect(maxActive).toBe(1);

    const text = 'POST /echo?split HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nX-Y: z\r\n\r\nhello';
    for (let cut = 1; cut < text.length; cut++) {
      c.write(text.slice(0, cut));
      await sleep(2);
      c.write(text.slice(cut));
      const r = JSON.parse(ok(await c.next()).body.toString()) as { body: string; rawHeaders: string[] };
      expect(r.body, `cut at ${cut}`).toBe('hello');
      expect(r.rawHeaders).toEqual(['Host', 't', 'Content-Length', '5', 'X-Y', 'z']);
    }
    expect(seen.every((s) => s.via === 'raw')).toBe(true);
  });

  it('reads and drops the rest of a body the response did not wait for, and keeps the connection', async () => {
    const { port } = await start();
    const c = await open(port);
    c.write(`POST /early HTTP/1.1\r\nHost: t\r\nContent-Length: 200000\r\n\r\n${'x'.repeat(1000)}`);
    const r = ok(await c.next());
    expect(r.status).toBe(413);
    c.write('y'.repeat(199_000));
    c.write(GET('/length'));
    expect(ok(await c.next()).body.toString()).toBe('hello');
  });

  it('holds a body nobody reads yet at the socket (no buffering), then streams it without losing or reordering bytes', async () => {
    const { port } = await start();
    const c = await open(port);
    const body = Buffer.alloc(20_000_000);
    for (let i = 0; i < body.length; i++) body[i] = i % 251;
    c.write(`POST /lazy HTTP/1.1\r\nHost: t\r\nContent-Length: ${body.length}\r\n\r\n`);
    c.write(body);
    await sleep(200);
    // The handler attaches after 300 ms; until then the server reads about one chunk, and the
    // rest waits in the kernel's socket buffers (a few MB on loopback) and the client's.
    expect(c.socket.writableLength).toBeGreaterThan(5_000_000);
    const r = ok(await c.next({ timeoutMs: 10_000 }));
    expect(r.body.equals(body)).toBe(true);
  });

  it('applies backpressure to a response the client reads slowly (write → false → onDrain)', async () => {
    const { port } = await start();
    const c = await open(port);
    c.socket.pause();
    c.write(GET('/big/8000000'));
    await sleep(300);
    c.socket.resume();
    const r = ok(await c.next({ timeoutMs: 15_000 }));
    expect(r.body.length).toBe(8_000_000);
    const drains = Number(events.find((e) => e.startsWith('big drains'))!.split(' ')[2]);
    expect(drains).toBeGreaterThan(0);
  });

  it('tells the exchange when the client goes away mid-body (and fails the body)', async () => {
    const { ingress, port } = await start();
    const c = await open(port);
    c.write(`POST /hold HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(10)}`);
    await sleep(100);
    c.close();
    await sleep(100);
    expect(events).toContain('client closed /hold');
    expect(events).toContain('body error /hold aborted');
    expect(ingress.openConnections).toBe(0);
  });

  it('answers 408 and closes when a head does not complete within the headers timeout (slowloris)', async () => {
    const { port } = await start({ headersTimeoutMs: 300 });
    const c = await open(port);
    c.write('GET /echo HTTP/1.1\r\nHost: t\r\n');
    for (let i = 0; i < 8; i++) {
      await sleep(60);
      if (!c.closed) c.write('X-Drip: 1\r\n');
    }
    const r = ok(await c.next({ timeoutMs: 2_000 }));
    expect(r.status).toBe(408);
    expect(r.head).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close');
    expect(await c.waitClosed()).toBe(true);
    expect(seen).toHaveLength(0);
  });

  it('closes a connection idle for the keep-alive timeout, and announces that timeout', async () => {
    const { port } = await start({ keepAliveTimeoutMs: 1_000, headersTimeoutMs: 5_000 });
    const c = await open(port);
    c.write(GET('/length'));
    const r = ok(await c.next());
    expect(header(r, 'keep-alive')).toBe('timeout=1');
    await sleep(500);
    expect(c.closed).toBe(false);
    expect(await c.waitClosed(2_000)).toBe(true);
  });
});

describe('raw ingress: shutdown', () => {
  it('closes idle connections at once and lets a request under way finish with Connection: close', async () => {
    const { ingress, port } = await start();
    const idle = await open(port);
    idle.write(GET('/length'));
    ok(await idle.next());
    const partial = await open(port);
    partial.write('GET /length HTTP/1.1\r\n');
    const busy = await open(port);
    busy.write(GET('/echo?delay=300'));
    await sleep(50);
    const closed = ingress.close(5_000);
    expect(await idle.waitClosed(1_000)).toBe(true);
    expect(await partial.waitClosed(1_000)).toBe(true);
    const r = ok(await busy.next());
    expect(r.status).toBe(200);
    expect(header(r, 'connection')).toBe('close');
    expect(await busy.waitClosed(1_000)).toBe(true);
    await closed;
  });

  it('announces the keep-alive hint, not the longer real timeout, and keeps the connection for the real one', async () => {
    const { port } = await start({ keepAliveTimeoutMs: 1_500, keepAliveHintMs: 1_000 });
    const c = await open(port);
    c.write(GET('/length'));
    expect(header(ok(await c.next()), 'keep-alive')).toBe('timeout=1');
    await sleep(1_100);
    expect(c.closed).toBe(false);
    expect(await c.waitClosed(2_000)).toBe(true);
  });

  it('while draining, serves new connections with Connection: close', async () => {
    const { ingress, port } = await start();
    ingress.closing = true;
    const c = await open(port);
    c.write(GET('/length'));
    const r = ok(await c.next());
    expect(r.status).toBe(200);
    expect(header(r, 'connection')).toBe('close');
    expect(await c.waitClosed(1_000)).toBe(true);
  });

  it('a graceful close keeps an idle connection until it has been idle for the grace (a request meanwhile is answered), and waits for the first request of a new one', async () => {
    const { ingress, port } = await start({ keepAliveHintMs: 2_000 });
    const older = await open(port);
    older.write(GET('/length'));
    ok(await older.next());
    await sleep(1_500);
    const recent = await open(port);
    recent.write(GET('/length'));
    ok(await recent.next());
    const fresh = await open(port);
    await sleep(50);

    const t0 = performance.now();
    let done = false;
    const closed = ingress.close(5_000, 2_000).then(() => (done = true));
    // older reaches 2 s idle about 500 ms in; the sweep that closes it runs at least every second.
    expect(await older.waitClosed(2_000)).toBe(true);
    expect(recent.closed).toBe(false);
    // A request on a connection still within its grace is served, and that closes it.
    recent.write(GET('/length'));
    const r = ok(await recent.next());
    expect(r.status).toBe(200);
    expect(header(r, 'connection')).toBe('close');
    expect(await recent.waitClosed(1_000)).toBe(true);
    // The connection that has carried nothing yet is still open: its client is about to send.
    expect(fresh.closed).toBe(false);
    expect(done).toBe(false);
    fresh.write(GET('/length'));
    expect(header(ok(await fresh.next()), 'connection')).toBe('close');
    await closed;
    expect(performance.now() - t0).toBeLessThan(4_000);
  });
});

describe('raw ingress: response framing (as node frames it)', () => {
  const cases: Array<{ method: string; status: number; framing: ReadResponse['framing']; te: string | undefined; body: string }> = [
    { method: 'GET', status: 200, framing: 'chunked', te: 'chunked', body: 'part1-part2' },
    { method: 'HEAD', status: 200, framing: 'none', te: undefined, body: '' },
    { method: 'GET', status: 204, framing: 'none', te: undefined, body: '' },
    { method: 'GET', status: 304, framing: 'none', te: undefined, body: '' },
    { method: 'POST', status: 500, framing: 'chunked', te: 'chunked', body: 'part1-part2' },
  ];
  for (const k of cases) {
    it(`${k.method} → ${k.status}: ${k.framing}, identical to node:http`, async () => {
      const { port } = await start();
      const node = createServer({ keepAliveTimeout: 65_000 }, nodeHttpListener(handler));
      await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
      try {
        const heads: string[] = [];
        for (const p of [port, (node.address() as { port: number }).port]) {
          const c = await open(p);
          c.write(`${k.method} /status/${k.status} HTTP/1.1\r\nHost: t\r\n\r\n` + GET('/length'));
          const r = ok(await c.next({ headRequest: k.method === 'HEAD' }));
          expect(r.status).toBe(k.status);
          expect(r.framing).toBe(k.framing);
          expect(header(r, 'transfer-encoding')).toBe(k.te);
          expect(r.body.toString()).toBe(k.body);
          // Nothing stray on the wire: the next response on the connection parses.
          expect(ok(await c.next()).body.toString()).toBe('hello');
          heads.push(r.head.replace(/Date: .*/, 'Date: X'));
        }
        expect(heads[0]).toBe(heads[1]);
      } finally {
        node.closeAllConnections();
        node.close();
      }
    });
  }

  it('keeps a given Content-Length on HEAD (no body follows) and on 200', async () => {
    const { port } = await start();
    const c = await open(port);
    c.write('HEAD /length HTTP/1.1\r\nHost: t\r\n\r\n' + GET('/length'));
    const head = ok(await c.next({ headRequest: true }));
    expect(header(head, 'content-length')).toBe('5');
    const get = ok(await c.next());
    expect(get.framing).toBe('length');
    expect(get.body.toString()).toBe('hello');
  });
});

describe('raw ingress: handover to node:http', () => {
  it('hands unusual requests to node with the bytes already read, and node keeps the connection', async () => {
    const { ingress, port } = await start();
    const c = await open(port);
    c.write(GET('/length'));
    expect(ok(await c.next()).body.toString()).toBe('hello');
    // A chunked body is node's; so is everything after it on this connection.
    c.write('POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
    const r = ok(await c.next());
    expect(JSON.parse(r.body.toString()).body).toBe('abc');
    c.write(GET('/echo?after'));
    expect(ok(await c.next()).status).toBe(200);
    expect(seen.map((s) => s.via)).toEqual(['raw', 'node', 'node']);
    expect(ingress.handovers).toEqual({ transfer_encoding: 1 });
  });

  it('node answers what it rejects (400 for obs-fold, 431 for a huge head), HTTP/1.0 is served', async () => {
    const { ingress, port } = await start();
    const a = await open(port);
    a.write('GET /echo HTTP/1.1\r\nHost: t\r\nX-A: b\r\n c\r\n\r\n');
    expect(ok(await a.next()).status).toBe(400);
    const b = await open(port);
    b.write(`GET /echo HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(ok(await b.next()).status).toBe(431);
    const c = await open(port);
    c.write('GET /length HTTP/1.0\r\nHost: t\r\n\r\n');
    const r = ok(await c.next());
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('hello');
    expect(ingress.handovers).toEqual({ obs_fold: 1, too_large: 1, version: 1 });
  });
});
