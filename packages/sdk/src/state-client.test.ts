/** The SDK's wire format, checked against a recording HTTP server. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStateClient, StateError } from './state-client.ts';

interface Seen { method: string; url: string; headers: IncomingHttpHeaders; body: string }

describe('state client wire format', () => {
  let server: Server;
  let url: string;
  let dir: string;
  let tokenPath: string;
  const seen: Seen[] = [];
  let reply: (s: Seen) => { status: number; body?: string; headers?: Record<string, string> } = () => ({ status: 200, body: '{}' });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-sdk-unit-'));
    tokenPath = join(dir, 'token');
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const s = { method: req.method!, url: req.url!, headers: req.headers, body };
        seen.push(s);
        const r = reply(s);
        res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
        res.end(r.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    seen.length = 0;
    writeFileSync(tokenPath, JSON.stringify({ namespace: 'ns1', keyspace: 'ks1', token: 'tok1' }));
  });

  it('sends scope headers, percent-encodes keys and maps every call to its route', async () => {
    reply = (s) =>
      s.method === 'GET' && s.url.startsWith('/v1/state/')
        ? { status: 200, body: '{"value":{"a":1}}', headers: { 'x-orrery-state-version': '7' } }
        : s.url.startsWith('/v1/state?')
          ? { status: 200, body: '{"keys":["a"],"cursor":""}' }
          : { status: 200, body: '{"version":8}' };
    const c = createStateClient({ url, tokenPath });
    expect(await c.get('a/b c')).toEqual({ value: { a: 1 }, version: 7 });
    expect(await c.set('k', { x: 1 }, { ttlSeconds: 30, ifVersion: 7 })).toEqual({ version: 8 });
    expect(await c.cas('k', 0, 'v')).toEqual({ version: 8 });
    expect(await c.delete('k', { ifVersion: 8 })).toBe(true);
    expect(await c.list({ prefix: 'p/', cursor: 'abc', limit: 5 })).toEqual({ keys: ['a'], cursor: '' });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /v1/state/a%2Fb%20c',
      'PUT /v1/state/k',
      'POST /v1/state/k/cas',
      'DELETE /v1/state/k',
      'GET /v1/state?prefix=p%2F&cursor=abc&limit=5',
    ]);
    for (const s of seen) {
      expect(s.headers.authorization).toBe('Bearer tok1');
      expect(s.headers['x-orrery-state-namespace']).toBe('ns1');
      expect(s.headers['x-orrery-state-keyspace']).toBe('ks1');
    }
    expect(seen[1]!.body).toBe('{"x":1}');
    expect(seen[1]!.headers['x-orrery-state-ttl']).toBe('30');
    expect(seen[1]!.headers['if-match']).toBe('7');
    expect(JSON.parse(seen[2]!.body)).toEqual({ expectVersion: 0, value: 'v' });
    expect(seen[3]!.headers['if-match']).toBe('8');
  });

  it('maps 404 to null/false and other errors to StateError{code,status}', async () => {
    reply = (s) => (s.method === 'PUT' ? { status: 429, body: '{"error":"full","code":"quota_keys"}' } : { status: 404, body: '{"error":"no","code":"not_found"}' });
    const c = createStateClient({ url, tokenPath });
    expect(await c.get('x')).toBeNull();
    expect(await c.delete('x')).toBe(false);
    const err = await c.set('x', 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateError);
    expect(err).toMatchObject({ code: 'quota_keys', status: 429, message: 'full' });
    reply = () => ({ status: 502, body: 'bad gateway' });
    await expect(c.list()).rejects.toMatchObject({ code: 'internal', status: 502 });
  });

  it('re-reads the token file once after a 401 (key rotation)', async () => {
    reply = (s) => (s.headers.authorization === 'Bearer tok2' ? { status: 200, body: '{"version":1}' } : { status: 401, body: '{"error":"x","code":"unauthorized"}' });
    const c = createStateClient({ url, tokenPath });
    await expect(c.set('k', 1)).rejects.toMatchObject({ code: 'unauthorized' });
    writeFileSync(tokenPath, JSON.stringify({ namespace: 'ns1', keyspace: 'ks1', token: 'tok2' }));
    expect(await c.set('k', 1)).toEqual({ version: 1 });
  });

  it('explains a missing URL or token file', async () => {
    await expect(createStateClient({ url: '', tokenPath }).get('k')).rejects.toThrow(/ORRERY_STATE_URL/);
    await expect(createStateClient({ url, tokenPath: join(dir, 'missing') }).get('k')).rejects.toThrow(/token file/);
  });

  it('withTrace: every call carries the trace headers it is given and reports its status; the token stays the client\'s', async () => {
    reply = (s) => (s.method === 'GET' ? { status: 404, body: '{"error":"no","code":"not_found"}' } : { status: 200, body: '{"version":3}' });
    const base = createStateClient({ url, tokenPath });
    const ended: Array<[string, number | undefined]> = [];
    let n = 0;
    const traced = base.withTrace({
      start: (op) => {
        n++;
        // A trace that tries to set credentials gets only its two headers through.
        return { traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba9020${n}-01`, tracestate: 'v=1', authorization: 'Bearer stolen', end: (status: number | undefined) => void ended.push([op, status]) } as never;
      },
    });
    expect(await traced.get('k')).toBeNull();
    expect(await traced.set('k', 1)).toEqual({ version: 3 });
    expect(seen.map((s) => s.headers.traceparent)).toEqual(['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba90201-01', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba90202-01']);
    expect(seen.map((s) => s.headers.tracestate)).toEqual(['v=1', 'v=1']);
    expect(seen.map((s) => s.headers.authorization)).toEqual(['Bearer tok1', 'Bearer tok1']);
    expect(ended).toEqual([['get', 404], ['set', 200]]);
    // The original client is untouched: no trace headers.
    await base.set('k', 1);
    expect(seen[2]!.headers.traceparent).toBeUndefined();
  });

  it('withTrace: a call that fails without an answer still ends its trace', async () => {
    const ended: Array<number | undefined> = [];
    const traced = createStateClient({ url: 'http://127.0.0.1:1', tokenPath }).withTrace({ start: () => ({ end: (status: number | undefined) => void ended.push(status) }) });
    await expect(traced.get('k')).rejects.toThrow();
    expect(ended).toEqual([undefined]);
  });
});
