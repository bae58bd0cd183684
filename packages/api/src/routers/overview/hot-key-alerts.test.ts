import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOT_KEY_ALERT_DEFAULT_SHARE, type RouterHotKeysResponse, type StateHotKeysResponse } from '@orrery/spec';
import { hotKeyHasher, stateKeyScope, stickyKeyScope } from '../../hot-keys/hot-key-id.ts';
import { createHarness, fnManifest, rejection, type Harness } from '../../testing/api-harness.ts';
import { hotKeyAlerts, type KeyspaceHotKeysInput, type StickyHotKeysInput } from './alert-rules.ts';

const ks = (share: number, rate = 10, top = true): KeyspaceHotKeysInput => ({ namespace: 'default', keyspace: 'cart', rate, top: top ? { label: 'cart/alice', rate: rate * share, share } : undefined });
const fn = (ownerBusyShare: number, rate = 5, keyspace: string | null = 'cart'): StickyHotKeysInput => ({
  namespace: 'default',
  function: 'shop',
  keyspace,
  keys: [{ label: 'alice', rate, ownerBusyShare, owner: { address: '10.0.0.7:8080' } }],
});

describe('hotKeyAlerts (pure)', () => {
  it('default: quiet at 20 %, a warning just above, naming the key, the shares and the panel', () => {
    expect(HOT_KEY_ALERT_DEFAULT_SHARE).toBe(0.2);
    expect(hotKeyAlerts([ks(0.2)], [])).toEqual([]);
    expect(hotKeyAlerts([ks(0.21)], [])).toEqual([
      {
        severity: 'warning',
        kind: 'hot-key',
        message: 'keyspace default/cart: key cart/alice takes 21 % of its requests (2.1/s of 10/s; alert above 20 %)',
        link: '/state/default?keyspace=cart#hot-keys',
      },
    ]);
  });
  it('the threshold is a parameter', () => {
    expect(hotKeyAlerts([ks(0.35)], [], 0.4)).toEqual([]);
    expect(hotKeyAlerts([ks(0.45)], [], 0.4)).toHaveLength(1);
    expect(hotKeyAlerts([ks(0.15)], [], 0.1)).toHaveLength(1);
  });
  it('a keyspace below one request a second, or without keys, raises nothing', () => {
    expect(hotKeyAlerts([ks(1, 0.9)], [])).toEqual([]);
    expect(hotKeyAlerts([ks(0.9, 10, false)], [])).toEqual([]);
  });
  it('a sticky key whose owner was busy at least half the time (at ≥ 1/s) keeps its owner saturated', () => {
    expect(hotKeyAlerts([], [fn(0.49)])).toEqual([]);
    expect(hotKeyAlerts([], [fn(0.9, 0.5)])).toEqual([]);
    expect(hotKeyAlerts([], [fn(0.5)])).toEqual([
      {
        severity: 'warning',
        kind: 'hot-key-owner',
        message: 'function default/shop: sticky key alice keeps its owner 10.0.0.7:8080 saturated (50 % of its 5/s found it at its concurrency limit)',
        link: '/state/default?keyspace=cart#hot-keys',
      },
    ]);
    // Without a keyspace to show it on, the function's sticky panel.
    expect(hotKeyAlerts([], [fn(0.8, 5, null)])[0]!.link).toBe('/functions/default/shop#sticky');
  });
});

// statesvc and router replicas stood in by HTTP servers serving the documented hot-key shapes.
const servers: Server[] = [];
async function serve(answers: Record<string, unknown>): Promise<string> {
  const s = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    const body = answers[path];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'no route', code: 'not_found' }));
  });
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  servers.push(s);
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

const stateAnswer: StateHotKeysResponse = {
  halfLifeSeconds: 10,
  capacity: 128,
  keyspaces: [
    { namespace: 'default', keyspace: 'cart', rate: 20, boundRate: 0, keys: [{ key: 'cart/alice', rate: 9, share: 0.45, rateError: 0 }] },
    { namespace: 'default', keyspace: 'calm', rate: 20, boundRate: 0, keys: [{ key: 'x', rate: 2, share: 0.1, rateError: 0 }] },
  ],
};
const routerAnswer: RouterHotKeysResponse = {
  routerId: 'r1',
  halfLifeSeconds: 10,
  capacity: 128,
  functions: [{ namespace: 'default', function: 'shop', rate: 10, boundRate: 0, keys: [{ key: 'alice', rate: 6, share: 0.6, rateError: 0, ownerBusyShare: 0.8, owner: { address: '127.0.0.1:4100', revision: 'shop-00001', inflight: 1, concurrency: 1 } }] }],
};

let h: Harness;
const masterKey = Buffer.alloc(32, 9);
beforeAll(async () => {
  const statesvc = await serve({ '/healthz': { status: 'ok' }, '/v1/admin/namespaces': { namespaces: [] }, '/v1/admin/hot-keys': stateAnswer });
  const router = await serve({ '/v1/stats': { revisions: [], functions: [] }, '/v1/hot-keys': routerAnswer });
  h = await createHarness({ statesvc: { url: statesvc, masterKey }, routerAdminUrls: () => [router], upstreamTimeoutMs: 2000 });
  await h.store.apply(fnManifest('shop', undefined, { state: { keyspace: 'cart', sticky: { source: 'header', name: 'X-Sid' } } }));
}, 60_000);
afterAll(async () => {
  await h.close();
  for (const s of servers) await new Promise<void>((ok) => s.close(() => ok()));
});

describe('overview.summary hot-key alerts', () => {
  it('operator: the share alert and the saturated-owner alert, with the keys', async () => {
    const r = await h.as('operator').overview.summary();
    const hot = r.alerts.filter((a) => a.kind.startsWith('hot-key'));
    expect(hot.map((a) => a.kind)).toEqual(['hot-key', 'hot-key-owner']);
    expect(hot[0]!.message).toContain('keyspace default/cart: key cart/alice takes 45 %');
    expect(hot[0]!.link).toBe('/state/default?keyspace=cart#hot-keys');
    expect(hot[1]!.message).toContain('sticky key alice keeps its owner 127.0.0.1:4100 saturated (80 %');
    expect(hot[1]!.link).toBe('/state/default?keyspace=cart#hot-keys');
  });

  it('viewer: the same alerts with keyed hashes instead of keys', async () => {
    const r = await h.as('viewer').overview.summary();
    const hot = r.alerts.filter((a) => a.kind.startsWith('hot-key'));
    expect(hot).toHaveLength(2);
    const hash = hotKeyHasher(masterKey);
    expect(hot[0]!.message).toContain(`key ${hash(stateKeyScope('default', 'cart'), 'cart/alice')} takes 45 %`);
    expect(hot[1]!.message).toContain(`sticky key ${hash(stickyKeyScope('default', 'shop'), 'alice')} keeps`);
    expect(JSON.stringify(r.alerts)).not.toMatch(/alice/);
  });

  it('the share threshold is an input (the calm keyspace’s 10 % alerts at 5 %), validated', async () => {
    const r = await h.as('viewer').overview.summary({ hotKeyShare: 0.05 });
    expect(r.alerts.filter((a) => a.kind === 'hot-key').map((a) => a.message.split(':')[0])).toEqual(['keyspace default/calm', 'keyspace default/cart']);
    expect((await h.as('viewer').overview.summary({ hotKeyShare: 0.5 })).alerts.filter((a) => a.kind === 'hot-key')).toEqual([]);
    expect((await rejection(h.as('viewer').overview.summary({ hotKeyShare: 0 }))).code).toBe('BAD_REQUEST');
    expect((await rejection(h.as('viewer').overview.summary({ hotKeyShare: 1.5 }))).code).toBe('BAD_REQUEST');
  });
});
