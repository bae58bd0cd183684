import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, Socket, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { writeWebResponse } from './write-web-response.ts';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A server answering every request with `make()` through writeWebResponse; counts the socket flushes of each response. */
async function serve(make: () => Response, opts: { head?: boolean } = {}): Promise<{ port: number; flushes: () => number; failures: unknown[] }> {
  let flushes = 0;
  const failures: unknown[] = [];
  server = createServer((req, res) => {
    // One _writeGeneric call is one write or writev syscall's worth of data handed to the socket.
    const socket = res.socket as Socket & { _writeGeneric: (...a: unknown[]) => unknown };
    const orig = socket._writeGeneric;
    socket._writeGeneric = function (this: Socket, ...a: unknown[]) {
      flushes++;
      return orig.apply(this, a);
    };
    writeWebResponse(res, make(), { head: opts.head ?? req.method === 'HEAD' }).catch((err: unknown) => failures.push(err));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, flushes: () => flushes, failures };
}

function get(port: number, method = 'GET'): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    request({ port, host: '127.0.0.1', method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

function streamOf(chunks: string[], gapMs = 0): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    async pull(c) {
      if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      if (i < chunks.length) c.enqueue(enc.encode(chunks[i++]));
      else c.close();
    },
  });
}

describe('writeWebResponse', () => {
  it('sends a body that is complete at once as one write with a Content-Length (no chunked framing)', async () => {
    const s = await serve(() => new Response('hello', { headers: { 'content-type': 'text/plain', 'x-a': '1' } }));
    const r = await get(s.port);
    expect(r).toMatchObject({ status: 200, body: 'hello' });
    expect(r.headers['content-length']).toBe('5');
    expect(r.headers['transfer-encoding']).toBeUndefined();
    expect(r.headers['x-a']).toBe('1');
    expect(s.flushes()).toBe(1);
  });

  it("drops the runtime's draining signal from a function's answer (the router would send a request that ran to another worker)", async () => {
    const s = await serve(() => new Response('busy', { status: 503, headers: { 'Orrery-Worker-Draining': '1', 'retry-after': '1' } }));
    const r = await get(s.port);
    expect(r).toMatchObject({ status: 503, body: 'busy' });
    expect(r.headers['orrery-worker-draining']).toBeUndefined();
    expect(r.headers['retry-after']).toBe('1');
  });

  it('counts bytes, not characters, for a multi-byte body', async () => {
    const s = await serve(() => Response.json({ greeting: 'grüße 🪐' }));
    const r = await get(s.port);
    expect(JSON.parse(r.body)).toEqual({ greeting: 'grüße 🪐' });
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
  });

  it('answers an empty body with Content-Length: 0', async () => {
    const s = await serve(() => new Response(''));
    const r = await get(s.port);
    expect(r).toMatchObject({ status: 200, body: '' });
    expect(r.headers['content-length']).toBe('0');
  });

  it('keeps the framing the handler chose', async () => {
    const s = await serve(() => new Response('abc', { headers: { 'content-length': '3' } }));
    expect((await get(s.port)).headers['content-length']).toBe('3');
    await new Promise((r) => server!.close(r));
    const c = await serve(() => new Response('abc', { headers: { 'transfer-encoding': 'chunked' } }));
    const r = await get(c.port);
    expect(r.body).toBe('abc');
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.headers['transfer-encoding']).toBe('chunked');
  });

  it('streams a body of several ready chunks chunked, the head going out with the first chunk', async () => {
    const s = await serve(() => new Response(streamOf(['a', 'b', 'c', 'd'])));
    const r = await get(s.port);
    expect(r.body).toBe('abcd');
    expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(r.headers['content-length']).toBeUndefined();
  });

  it('sends the head at once when the body is slow (the client sees the status before the first chunk)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const enc = new TextEncoder();
    const s = await serve(
      () =>
        new Response(
          new ReadableStream({
            async start(c) {
              await gate;
              c.enqueue(enc.encode('late'));
              c.close();
            },
          }),
          { status: 201 },
        ),
    );
    const sock = connect(s.port, '127.0.0.1');
    let seen = '';
    sock.setEncoding('latin1');
    sock.on('data', (d: string) => (seen += d));
    sock.write('GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    await expect.poll(() => seen, { timeout: 5000 }).toContain('HTTP/1.1 201');
    expect(seen).not.toContain('late');
    release();
    await new Promise((r) => sock.on('end', r));
    expect(seen).toMatch(/transfer-encoding: chunked/i);
    expect(seen).toContain('late');
  });

  it('streams a slow multi-chunk body whole', async () => {
    const s = await serve(() => new Response(streamOf(['one ', 'two ', 'three'], 5)));
    expect((await get(s.port)).body).toBe('one two three');
  });

  it('answers HEAD with the head only', async () => {
    const s = await serve(() => new Response('body', { headers: { 'x-h': '1' } }), { head: true });
    const r = await get(s.port, 'HEAD');
    expect(r).toMatchObject({ status: 200, body: '' });
    expect(r.headers['x-h']).toBe('1');
  });

  it('cuts the connection when the body fails before anything was sent, instead of answering a truncated 200', async () => {
    const s = await serve(
      () =>
        new Response(
          new ReadableStream({
            pull() {
              throw new Error('boom');
            },
          }),
        ),
    );
    await expect(get(s.port)).rejects.toThrow();
    await expect.poll(() => s.failures.length).toBe(1);
    expect(String(s.failures[0])).toContain('boom');
  });

  it('cancels the body when the client goes away mid-stream', async () => {
    let cancelled = false;
    const enc = new TextEncoder();
    const s = await serve(
      () =>
        new Response(
          new ReadableStream({
            async pull(c) {
              await new Promise((r) => setTimeout(r, 5));
              c.enqueue(enc.encode('tick '));
            },
            cancel() {
              cancelled = true;
            },
          }),
        ),
    );
    const sock = connect(s.port, '127.0.0.1');
    let seen = '';
    sock.on('data', (d: Buffer) => (seen += d.toString('latin1')));
    sock.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    await expect.poll(() => seen, { timeout: 5000 }).toContain('tick');
    sock.destroy();
    await expect.poll(() => cancelled, { timeout: 5000 }).toBe(true);
  });
});
