/**
 * withInvocation: the calls of one invocation are numbered in call order, and a second run with
 * the same id, answered from the recorded outcomes, follows the first run's path. The server
 * below records answers by Idempotency-Key as statesvc does (the real service has its own tests
 * and the runtime's replay test runs against it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_RETENTION_HEADER as SPEC_RETENTION_HEADER } from '@orrery/spec';
import { createStateClient } from './state-client.ts';
import { IDEMPOTENCY_RETENTION_HEADER, InvocationPositions, isInvocationId } from './invocation-positions.ts';

interface Seen { method: string; url: string; headers: IncomingHttpHeaders }
interface Answer { status: number; body: string; version?: number }

const ID = '0123456789abcdef0123456789abcdef';

describe('state client: numbered calls of a replayable invocation', () => {
  let server: Server;
  let url: string;
  let dir: string;
  let tokenPath: string;
  const seen: Seen[] = [];
  const entries = new Map<string, { value: string; version: number }>();
  const recorded = new Map<string, Answer>();
  let version = 0;
  /** Requests to drop without an answer after they were applied (a lost answer). */
  let dropNext = 0;

  const apply = (method: string, key: string, body: string): Answer => {
    const cur = entries.get(key);
    if (method === 'GET') return cur ? { status: 200, body: `{"value":${cur.value}}`, version: cur.version } : { status: 404, body: '{"error":"no","code":"not_found"}' };
    if (method === 'DELETE') return entries.delete(key) ? { status: 200, body: '{"deleted":true}' } : { status: 404, body: '{"error":"no","code":"not_found"}' };
    const { expectVersion, value } = JSON.parse(body) as { expectVersion: number; value: unknown };
    if ((cur?.version ?? 0) !== expectVersion) return { status: 412, body: '{"error":"moved","code":"version_conflict"}' };
    entries.set(key, { value: JSON.stringify(value), version: ++version });
    return { status: 200, body: `{"version":${version}}`, version };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-sdk-inv-'));
    tokenPath = join(dir, 'token');
    writeFileSync(tokenPath, JSON.stringify({ namespace: 'ns1', keyspace: 'ks1', token: 'tok1' }));
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers });
        const key = decodeURIComponent(req.url!.replace(/^\/v1\/state\//, '').replace(/\/cas$/, ''));
        const idem = req.headers['idempotency-key'] as string | undefined;
        let answer = idem === undefined ? undefined : recorded.get(idem);
        const replayed = answer !== undefined;
        if (!answer) {
          answer = apply(req.method!, key, body);
          if (idem !== undefined) recorded.set(idem, answer);
        }
        if (dropNext > 0) {
          dropNext--;
          req.socket.destroy();
          return;
        }
        res.writeHead(answer.status, {
          'content-type': 'application/json',
          ...(answer.version === undefined ? {} : { 'x-orrery-state-version': String(answer.version) }),
          ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
        });
        res.end(answer.body);
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
    entries.clear();
    recorded.clear();
    dropNext = 0;
  });

  const client = () => createStateClient({ url, tokenPath, retryDelayMs: 1 });
  const keys = () => seen.map((s) => s.headers['idempotency-key']);

  it('numbers get, set, cas, delete and update in call order and asks for the retention', async () => {
    const c = client().withInvocation(ID, { retentionSeconds: 120 });
    await c.get('a');
    await c.cas('a', 0, 1);
    await c.update<number>('a', (n) => (n ?? 0) + 1);
    await c.delete('a');
    expect(keys()).toEqual([1, 2, 3, 4, 5].map((n) => `${ID}.${n}`));
    for (const s of seen) expect(s.headers[IDEMPOTENCY_RETENTION_HEADER]).toBe('120');
  });

  it('positions follow the order of the calls, not of the answers', async () => {
    const c = client().withInvocation(ID, { retentionSeconds: 60 });
    await Promise.all([c.get('x'), c.get('y'), c.cas('z', 0, 1)]);
    const byUrl = new Map(seen.map((s) => [s.url, s.headers['idempotency-key']]));
    expect(byUrl.get('/v1/state/x')).toBe(`${ID}.1`);
    expect(byUrl.get('/v1/state/y')).toBe(`${ID}.2`);
    expect(byUrl.get('/v1/state/z/cas')).toBe(`${ID}.3`);
  });

  it('a key passed in a call wins and still uses up its position; list is not numbered', async () => {
    const c = client().withInvocation(ID, { retentionSeconds: 60 });
    await c.cas('a', 0, 1, { idempotencyKey: 'order-7' });
    await c.get('a');
    expect(keys()).toEqual(['order-7', `${ID}.2`]);
    // The caller's own key keeps the keyspace's retention (it is meant to outlive the invocation).
    expect(seen[0]!.headers[IDEMPOTENCY_RETENTION_HEADER]).toBeUndefined();
  });

  it('a recorded read whose answer is lost is sent again with the same key', async () => {
    entries.set('a', { value: '41', version: ++version });
    dropNext = 1;
    expect(await client().withInvocation(ID, { retentionSeconds: 60 }).get<number>('a')).toEqual({ value: 41, version });
    expect(keys()).toEqual([`${ID}.1`, `${ID}.1`]);
  });

  it('a second run of the invocation reads what the first read, and its increment lands once', async () => {
    entries.set('hits', { value: '5', version: ++version });
    const first = await client().withInvocation(ID, { retentionSeconds: 60 }).update<number>('hits', (n) => (n ?? 0) + 1);
    expect(first.value).toBe(6);
    // Another invocation moves the counter on before the replay (the first run's worker died before answering).
    await client().update<number>('hits', (n) => (n ?? 0) + 1);
    const replay = await client().withInvocation(ID, { retentionSeconds: 60 }).update<number>('hits', (n) => (n ?? 0) + 1);
    expect(replay).toEqual(first);
    expect(JSON.parse(entries.get('hits')!.value)).toBe(7);
  });

  it('without withInvocation nothing is numbered: reads carry no key, writes a random one', async () => {
    await client().get('a');
    await client().cas('a', 0, 1);
    expect(keys()[0]).toBeUndefined();
    expect(keys()[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.headers[IDEMPOTENCY_RETENTION_HEADER]).toBeUndefined();
  });

  it('refuses an id that cannot be a key and a retention that is not whole seconds', () => {
    expect(isInvocationId(ID)).toBe(true);
    for (const bad of ['short', 'a'.repeat(65), `${ID.slice(0, 30)}".`, `${ID} `]) {
      expect(isInvocationId(bad)).toBe(false);
      expect(() => new InvocationPositions(bad, 60)).toThrow(RangeError);
    }
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new InvocationPositions(ID, bad)).toThrow(RangeError);
  });

  it('sends the retention header statesvc reads', () => {
    expect(IDEMPOTENCY_RETENTION_HEADER).toBe(SPEC_RETENTION_HEADER.toLowerCase());
  });
});
