/** Writes carry an Idempotency-Key made once per logical write, and only such writes are retried when the answer is lost. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStateClient } from './state-client.ts';

interface Seen { method: string; url: string; headers: IncomingHttpHeaders; body: string }
/** What the server does with one request: answer it, or drop the connection without an answer. */
type Reply = { status: number; body?: string } | 'drop';

describe('state client: idempotent writes and retries', () => {
  let server: Server;
  let url: string;
  let dir: string;
  let tokenPath: string;
  const seen: Seen[] = [];
  let replies: Reply[] = [];
  const fallback: Reply = { status: 200, body: '{"version":5}' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-sdk-idem-'));
    tokenPath = join(dir, 'token');
    writeFileSync(tokenPath, JSON.stringify({ namespace: 'ns1', keyspace: 'ks1', token: 'tok1' }));
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        const r = replies.shift() ?? fallback;
        if (r === 'drop') {
          req.socket.destroy(); // as a statesvc killed after its commit: no answer at all
          return;
        }
        res.writeHead(r.status, { 'content-type': 'application/json' });
        res.end(r.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    seen.length = 0;
    replies = [];
  });

  // Fencing off: these tests script every exchange of a write; fencing has its own tests (state-fencing.test.ts).
  const client = (o: Parameters<typeof createStateClient>[0] = {}) => createStateClient({ url, tokenPath, retryDelayMs: 1, ...o });
  const keys = () => seen.map((s) => s.headers['idempotency-key']);

  it('every write carries a key of its own; reads carry none', async () => {
    const c = client();
    await c.set('a', 1);
    await c.set('a', 1);
    await c.cas('a', 5, 2);
    replies = [{ status: 200, body: '{"deleted":true}' }, { status: 404, body: '{"error":"no","code":"not_found"}' }, { status: 200, body: '{"keys":[],"cursor":""}' }];
    await c.delete('a');
    await c.get('a');
    await c.list();
    const [k1, k2, k3, k4, k5, k6] = keys();
    for (const k of [k1, k2, k3, k4]) expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set([k1, k2, k3, k4]).size).toBe(4);
    expect([k5, k6]).toEqual([undefined, undefined]);
  });

  it('a key the caller passes is sent as is, on every call that names it', async () => {
    const c = client();
    await c.set('a', 1, { idempotencyKey: 'order-42' });
    await c.cas('a', 5, 2, { idempotencyKey: 'order-43' });
    replies = [{ status: 200, body: '{"deleted":true}' }];
    await c.delete('a', { idempotencyKey: 'order-44', ifVersion: 5 });
    expect(keys()).toEqual(['order-42', 'order-43', 'order-44']);
    expect(seen[2]!.headers['if-match']).toBe('5');
  });

  it('a dropped connection and a 503 are retried with the same key and the same body', async () => {
    replies = ['drop', { status: 503, body: '{"error":"db down","code":"capability_unavailable"}' }, { status: 200, body: '{"version":9}' }];
    expect(await client().set('k', { n: 1 }, { ttlSeconds: 30 })).toEqual({ version: 9 });
    expect(seen).toHaveLength(3);
    expect(new Set(keys()).size).toBe(1);
    expect(keys()[0]).toBeDefined();
    for (const s of seen) {
      expect(s.body).toBe('{"n":1}');
      expect(s.headers['x-orrery-state-ttl']).toBe('30');
    }
    replies = ['drop', { status: 200, body: '{"deleted":true}' }];
    expect(await client().delete('k')).toBe(true);
    expect(seen[3]!.headers['idempotency-key']).toBe(seen[4]!.headers['idempotency-key']);
  });

  it('answers from statesvc are final: 412, 422, 429 and 500 are not retried', async () => {
    const c = client();
    for (const [status, code] of [[412, 'version_conflict'], [422, 'idempotency_mismatch'], [429, 'quota_keys'], [500, 'internal']] as const) {
      seen.length = 0;
      replies = [{ status, body: JSON.stringify({ error: 'x', code }) }];
      await expect(c.set('k', 1)).rejects.toMatchObject({ status, code });
      expect(seen).toHaveLength(1);
    }
  });

  it('gives up after `retries` more attempts with the last answer, or the last network error', async () => {
    replies = Array.from({ length: 10 }, () => ({ status: 502, body: 'bad gateway' }));
    await expect(client({ retries: 2 }).set('k', 1)).rejects.toMatchObject({ status: 502 });
    expect(seen).toHaveLength(3);
    seen.length = 0;
    replies = Array.from({ length: 10 }, (): Reply => 'drop');
    await expect(client({ retries: 1 }).cas('k', 0, 1)).rejects.toThrow(/fetch failed/);
    expect(seen).toHaveLength(2);
    expect(new Set(keys()).size).toBe(1);
  });

  it('retries: 0 sends once; idempotentWrites: false sends no key of its own and never retries without one', async () => {
    replies = [{ status: 503, body: '{"error":"x","code":"capability_unavailable"}' }];
    await expect(client({ retries: 0 }).set('k', 1)).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
    expect(keys()[0]).toBeDefined();

    seen.length = 0;
    replies = [{ status: 503, body: '{"error":"x","code":"capability_unavailable"}' }];
    await expect(client({ idempotentWrites: false }).set('k', 1)).rejects.toMatchObject({ status: 503 });
    expect(keys()).toEqual([undefined]);

    seen.length = 0;
    replies = ['drop'];
    expect(await client({ idempotentWrites: false }).set('k', 1, { idempotencyKey: 'mine' })).toEqual({ version: 5 });
    expect(keys()).toEqual(['mine', 'mine']);
  });

  it('each attempt is its own traced exchange', async () => {
    replies = [{ status: 503, body: '{"error":"x","code":"capability_unavailable"}' }];
    const ended: Array<number | undefined> = [];
    const traced = client().withTrace({ start: () => ({ end: (status) => void ended.push(status) }) });
    expect(await traced.set('k', 1)).toEqual({ version: 5 });
    expect(ended).toEqual([503, 200]);
  });
});
