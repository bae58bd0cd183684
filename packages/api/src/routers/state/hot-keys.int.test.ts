/**
 * state.hotKeys against the real statesvc (signed admin read) and router replicas stood in by local
 * HTTP servers serving the documented `/v1/hot-keys` shape behind the store token (the real
 * router's side is apps/router/src/hot-keys.int.test.ts; the e2e spec drives both end to end).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import type { RouterHotKeysResponse } from '@orrery/spec';
import { issuesOf } from '../../errors.ts';
import { hotKeyHasher, stateKeyScope, stickyKeyScope } from '../../hot-keys/hot-key-id.ts';
import { createHarness, fnManifest, rejection, type Harness } from '../../testing/api-harness.ts';
import { spawnStatesvc } from '@orrery/statesvc/testing';

const masterKey = randomBytes(32);
const ROUTER_TOKEN = 'store-token-for-routers';
let dir: string;
let statesvc: Awaited<ReturnType<typeof spawnStatesvc>>;
let h: Harness;
const routers: Array<{ server: Server; url: string; seenAuth: Array<string | undefined> }> = [];

function routerAnswer(keys: Array<[string, number, number]>, inflight: number): RouterHotKeysResponse {
  const rate = keys.reduce((s, k) => s + k[1], 0) + 5;
  return {
    routerId: 'r',
    halfLifeSeconds: 10,
    capacity: 128,
    functions: [
      {
        namespace: 'default',
        function: 'shop',
        rate,
        boundRate: 0.1,
        keys: keys.map(([key, r, busy]) => ({ key, rate: r, share: r / rate, rateError: 0, ownerBusyShare: busy, owner: { address: '127.0.0.1:4100', revision: 'shop-00001', inflight, concurrency: 2 } })),
      },
    ],
  };
}

async function fakeRouter(answer: RouterHotKeysResponse) {
  const r = { server: createServer(), url: '', seenAuth: [] as Array<string | undefined> };
  r.server.on('request', (req, res) => {
    r.seenAuth.push(req.headers.authorization);
    const ok = req.url?.startsWith('/v1/hot-keys') && req.headers.authorization === `Bearer ${ROUTER_TOKEN}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? answer : { error: 'send the store token', code: 'unauthorized' }));
  });
  await new Promise<void>((ok) => r.server.listen(0, '127.0.0.1', ok));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`;
  routers.push(r);
  return r;
}

async function put(keyspace: string, key: string): Promise<void> {
  const res = await fetch(`${statesvc.url}/v1/state/${encodeURIComponent(key)}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${deriveStateToken(masterKey, 'default', keyspace)}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': keyspace },
    body: '1',
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orrery-api-hot-'));
  writeFileSync(join(dir, 'master.key'), masterKey.toString('hex'));
  writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: default, keyspace: carts}\n- {namespace: default, keyspace: plain}\n');
  const [svc, harness] = await Promise.all([spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')]), createHarness()]);
  statesvc = svc;
  h = harness;
  await fakeRouter(routerAnswer([['alice', 6, 0.9], ['bob', 1, 0]], 2));
  await fakeRouter(routerAnswer([['alice', 2, 0.1]], 1));
  h.services.statesvc = { url: statesvc.url, masterKey };
  h.services.routerAdminUrls = () => [...routers.map((r) => r.url), 'http://127.0.0.1:9'];
  h.services.routerToken = ROUTER_TOKEN;
  h.services.upstreamTimeoutMs = 2000;
  await h.store.apply(fnManifest('shop', 'export default 1', { state: { keyspace: 'carts', sticky: { source: 'header', name: 'X-Sid' } } }));
  await h.store.apply(fnManifest('plain', 'export default 1', { state: {} }));
  // carts: "cart/alice" 6 of 10 writes; plain: one key.
  for (let i = 0; i < 10; i++) await put('carts', i < 6 ? 'cart/alice' : `cart/u${i}`);
  await put('plain', 'only');
}, 90_000);
afterAll(async () => {
  await statesvc?.stop();
  await h?.close();
  for (const r of routers) await new Promise<void>((ok) => r.server.close(() => ok()));
  rmSync(dir, { recursive: true, force: true });
});

describe('state.hotKeys', () => {
  it('operator: the keys themselves, from statesvc and from every router replica (summed)', async () => {
    const r = await h.as('operator').state.hotKeys({ keyspace: 'carts' });
    expect(r).toMatchObject({ namespace: 'default', keyspace: 'carts', function: 'shop', hashed: false });
    expect(r.state.ok).toBe(true);
    expect(r.state.keys[0]!.key).toBe('cart/alice');
    expect(r.state.keys[0]!.share).toBeCloseTo(0.6, 1);
    expect(r.state.halfLifeSeconds).toBe(10);
    const sticky = r.sticky!;
    expect(sticky).toMatchObject({ source: 'header', name: 'X-Sid' });
    expect(sticky.keys.map((k) => k.key)).toEqual(['alice', 'bob']);
    // alice: 6 + 2 req/s of 7 + 5 + 2 + 5 = 19; busy (6·0.9 + 2·0.1)/8 = 0.7; owner in flight 2 + 1 of 2.
    expect(sticky.keys[0]!.rate).toBe(8);
    expect(sticky.keys[0]!.share).toBeCloseTo(8 / 19, 4);
    expect(sticky.keys[0]!.ownerBusyShare).toBeCloseTo(0.7, 4);
    expect(sticky.keys[0]!.owner).toMatchObject({ address: '127.0.0.1:4100', inflight: 3, concurrency: 2 });
    expect(sticky.keys[0]!.ownerSaturation).toBe(1);
    expect(sticky.replicas.filter((x) => x.ok)).toHaveLength(2);
    expect(sticky.replicas.filter((x) => !x.ok)).toHaveLength(1);
    // The routers got the store token.
    for (const rt of routers) expect(rt.seenAuth.at(-1)).toBe(`Bearer ${ROUTER_TOKEN}`);
    // admin sees what operator sees.
    expect((await h.as('admin').state.hotKeys({ keyspace: 'carts' })).state.keys[0]!.key).toBe('cart/alice');
  });

  it('viewer: keyed hashes instead of keys, stable between calls and not the keys', async () => {
    const r = await h.as('viewer').state.hotKeys({ keyspace: 'carts' });
    expect(r.hashed).toBe(true);
    const hash = hotKeyHasher(masterKey);
    expect(r.state.keys[0]!.key).toBe(hash(stateKeyScope('default', 'carts'), 'cart/alice'));
    expect(r.sticky!.keys[0]!.key).toBe(hash(stickyKeyScope('default', 'shop'), 'alice'));
    for (const k of [...r.state.keys, ...r.sticky!.keys]) expect(k.key).toMatch(/^h:[0-9a-f]{16}$/);
    // Nothing in the answer names a key.
    const text = JSON.stringify(r);
    for (const secret of ['alice', 'bob', 'cart/u']) expect(text).not.toContain(secret);
    const again = await h.as('viewer').state.hotKeys({ keyspace: 'carts' });
    expect(again.state.keys[0]!.key).toBe(r.state.keys[0]!.key);
    // Numbers are the same as the operator's.
    expect(r.state.keys[0]!.share).toBe((await h.as('operator').state.hotKeys({ keyspace: 'carts' })).state.keys[0]!.share);
  });

  it('a Function without sticky routing has no sticky part; a quiet keyspace has no keys', async () => {
    const plain = await h.as('operator').state.hotKeys({ keyspace: 'plain' });
    expect(plain.function).toBe('plain');
    expect(plain.sticky).toBeNull();
    expect(plain.state.keys.map((k) => k.key)).toEqual(['only']);
    const none = await h.as('operator').state.hotKeys({ namespace: 'elsewhere', keyspace: 'carts' });
    expect(none.function).toBeNull();
    expect(none.state.keys).toEqual([]);
  });

  it('routers refusing the token are reported, not trusted', async () => {
    h.services.routerToken = 'wrong';
    try {
      const r = await h.as('operator').state.hotKeys({ keyspace: 'carts' });
      expect(r.sticky!.keys).toEqual([]);
      expect(r.sticky!.replicas.every((x) => !x.ok)).toBe(true);
      expect(r.sticky!.replicas[0]!.error).toContain('401');
    } finally {
      h.services.routerToken = ROUTER_TOKEN;
    }
  });

  it('statesvc failing is reported beside the routers’ answer; a wrong master key is refused by statesvc', async () => {
    const saved = h.services.statesvc;
    h.services.statesvc = { url: statesvc.url, masterKey: randomBytes(32) };
    try {
      const r = await h.as('operator').state.hotKeys({ keyspace: 'carts' });
      expect(r.state.ok).toBe(false);
      expect(r.state.error).toMatch(/statesvc admin read failed/);
      expect(r.state.error).not.toContain('signature=');
      expect(r.sticky!.keys.length).toBeGreaterThan(0);
    } finally {
      h.services.statesvc = saved;
    }
  });

  it('needs a session; bad input is BAD_REQUEST with the path', async () => {
    expect((await rejection(h.as(undefined).state.hotKeys({ keyspace: 'carts' }))).code).toBe('UNAUTHORIZED');
    for (const [input, path] of [
      [{ keyspace: 'Bad!' }, 'keyspace'],
      [{ keyspace: 'carts', limit: 0 }, 'limit'],
      [{ keyspace: 'carts', limit: 51 }, 'limit'],
      [{ keyspace: 'carts', namespace: 'x'.repeat(64) }, 'namespace'],
    ] as const) {
      const err = await rejection(h.as('viewer').state.hotKeys(input));
      expect(err.code).toBe('BAD_REQUEST');
      expect(issuesOf(err.cause)?.[0]?.path).toBe(path);
    }
  });
});
