/**
 * Issue 20, items 1 and 13, attacked from outside: the real `orrery-registry` binary on a real
 * etcd, called over HTTP by someone who can reach its public port (as every pod could).
 *
 * - Writes under `orrery.functions.` without the revision's registration credential, with another
 *   revision's, another namespace's, another key's, or for a service the credential is not for:
 *   refused with 401/403 and a stable code, and nothing is written (checked with a query).
 * - Someone else's instance cannot be renewed or removed.
 * - Scoped write tokens: enforced per namespace and service prefix.
 * - A seed-style config without write tokens keeps open registration for other services, and
 *   says so on stderr at start-up.
 * - Watch streams are capped per client address and in total, with a clear error; freeing a
 *   stream lets a new one in.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdCluster } from '@orrery/etcdcluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, credentialHeader, regBody, SseClient, spawnRegistry, TOKENS, type RegistryProcess } from './testing/fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'registry-security-'));
const SVC = 'orrery.functions.shop.counter.counter-00001';
const worker = (instanceId: string, over: Record<string, unknown> = {}) => ({
  namespace: 'shop',
  service: SVC,
  instanceId,
  labels: { 'orrery.dev/function': 'counter', 'orrery.dev/revision': 'counter-00001', 'orrery.dev/executor': 'deploy' },
  endpoints: [{ name: 'http', protocol: 'http', host: '10.1.2.3', port: 8080 }],
  leaseTtlSeconds: 60,
  ...over,
});
const TRADE_TOKEN = 'trade-team-write-token-0123456789';
const OPS_TOKEN = 'ops-write-token-for-staging-0123';

let etcd: EtcdCluster;
/** Write tokens on (a write-tokens file, as the chart mounts it). */
let locked: RegistryProcess;
/** A seed-style config: no write tokens. */
let open: RegistryProcess;
/** Small watch caps: 2 per client, 3 in total. */
let capped: RegistryProcess;
const streams: SseClient[] = [];

beforeAll(async () => {
  etcd = await EtcdCluster.start({ size: 1 });
  const tokensFile = join(dir, 'write-tokens.toml');
  writeFileSync(
    tokensFile,
    `[[write_tokens]]\nname = "trade"\ntoken = "${TRADE_TOKEN}"\nnamespaces = ["prod"]\nservice_prefixes = ["company.trade"]\n\n` +
      `[[write_tokens]]\nname = "ops"\ntoken = "${OPS_TOKEN}"\nnamespaces = ["staging"]\nservice_prefixes = ["*"]\n`,
    { mode: 0o600 },
  );
  // Each registry uses its own etcd prefix, so their data never mix.
  [locked, open, capped] = await Promise.all([
    spawnRegistry(etcd.endpoints(), ['--prefix', '/sec/locked', '--write-tokens-file', tokensFile]),
    spawnRegistry(etcd.endpoints(), ['--prefix', '/sec/open']),
    spawnRegistry(etcd.endpoints(), ['--prefix', '/sec/capped', '--max-watches', '3', '--max-watches-per-client', '2']),
  ]);
}, 120_000);

afterAll(async () => {
  for (const s of streams) s.close();
  await Promise.all([locked, open, capped].map((r) => r?.stop()));
  await etcd?.close();
}, 60_000);

const post = (r: RegistryProcess, path: string, body: unknown, headers: Record<string, string> = {}) => call(r.httpUrl, 'POST', `/api/v1/registry/${path}`, body, headers);
const instances = async (r: RegistryProcess, ns: string, service?: string) => {
  const q = await call(r.httpUrl, 'GET', `/api/v1/registry/instances?namespace=${ns}${service ? `&service=${service}` : ''}`);
  expect(q.body.code).toBe('ok');
  return q.body.data.instances as Array<{ instanceId: string; endpoints: Array<{ host: string }> }>;
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('registry writes under orrery.functions. need the revision credential (item 1)', () => {
  it('an outsider with no credential, or the wrong one, writes nothing', { timeout: 30_000 }, async () => {
    for (const r of [locked, open]) {
      const attempts: Array<[Record<string, string>, number, string]> = [
        [{}, 401, 'credential_required'],
        [credentialHeader('shop', 'orrery.functions.shop.counter.counter-00002'), 403, 'credential_rejected'], // another revision of the same function
        [credentialHeader('shop', 'orrery.functions.shop.cart.cart-00001'), 403, 'credential_rejected'], // another function
        [credentialHeader('other', 'orrery.functions.other.counter.counter-00001'), 403, 'credential_rejected'], // another namespace
        [credentialHeader('shop', SVC, Buffer.alloc(32, 1)), 403, 'credential_rejected'], // a key this registry does not hold
        [bearer(TRADE_TOKEN), 403, 'credential_rejected'], // a write token never covers the reserved prefix
        [{ authorization: 'Basic c2hvcDpzaG9w' }, 403, 'credential_rejected'],
      ];
      for (const [headers, status, code] of attempts) {
        const res = await post(r, 'register', worker('rogue', { endpoints: [{ name: 'http', protocol: 'http', host: '127.0.0.1', port: 2379 }] }), headers);
        expect([res.status, res.body.code], JSON.stringify(res.body)).toEqual([status, code]);
        expect(res.body.message).toMatch(/credential|Authorization/);
        expect(res.body.requestId).toBeTruthy();
      }
      // A case variant is still the reserved prefix, and a real credential for it does not exist.
      const upper = await post(r, 'register', worker('rogue', { service: SVC.toUpperCase() }), credentialHeader('shop', SVC));
      expect(upper.status).toBe(403);
      // The credential of this revision, used for a service that is not its own (the same namespace).
      const elsewhere = await post(r, 'register', worker('rogue', { service: 'orrery.functions.shop.counter.counter-00002' }), credentialHeader('shop', SVC));
      expect([elsewhere.status, elsewhere.body.code]).toEqual([403, 'credential_rejected']);
      const other = await post(r, 'register', { ...regBody('prod', 'rogue'), service: 'company.trade.order.oc.api' }, credentialHeader('shop', SVC));
      expect([other.status, other.body.code]).toEqual([403, 'credential_rejected']);
      expect(await instances(r, 'shop')).toEqual([]);
    }
  });

  it("the revision's own credential registers; others can neither renew nor remove that instance", { timeout: 30_000 }, async () => {
    const own = credentialHeader('shop', SVC);
    const reg = await post(locked, 'register', worker('w1'), own);
    expect(reg.body.code, JSON.stringify(reg.body)).toBe('ok');
    const id = { namespace: 'shop', service: SVC, instanceId: 'w1' };
    for (const path of ['heartbeat', 'deregister']) {
      expect((await post(locked, path, id)).body.code).toBe('credential_required');
      expect((await post(locked, path, id, credentialHeader('shop', 'orrery.functions.shop.counter.counter-00002'))).body.code).toBe('credential_rejected');
      expect((await post(locked, path, id, credentialHeader('other', SVC))).body.code).toBe('credential_rejected');
      expect((await post(locked, path, id, bearer(OPS_TOKEN))).body.code).toBe('credential_rejected');
    }
    expect((await instances(locked, 'shop', SVC)).map((i) => i.instanceId)).toEqual(['w1']);
    expect((await post(locked, 'heartbeat', id, own)).body.code).toBe('ok');
    expect((await post(locked, 'deregister', id, own)).body.code).toBe('ok');
    expect(await instances(locked, 'shop', SVC)).toEqual([]);
  });
});

describe('scoped write tokens for other services (item 1)', () => {
  const trade = (ns: string, id: string, service = 'company.trade.order.oc.api') => ({ ...regBody(ns, id), service });

  it('no token is 401, a token out of its namespace or prefix is 403, in scope it writes', { timeout: 30_000 }, async () => {
    expect([(await post(locked, 'register', trade('prod', 'x'))).status, (await post(locked, 'register', trade('prod', 'x'))).body.code]).toEqual([401, 'credential_required']);
    const refused: Array<[Record<string, unknown>, Record<string, string>]> = [
      [trade('staging', 'x'), bearer(TRADE_TOKEN)], // trade's token, another namespace
      [trade('prod', 'x', 'company.pay.order.oc.api'), bearer(TRADE_TOKEN)], // trade's token, another prefix
      [trade('prod', 'x', 'company.trader.order.oc.api'), bearer(TRADE_TOKEN)], // whole segments only
      [trade('prod', 'x'), bearer(OPS_TOKEN)], // ops' token is for staging only
      [trade('prod', 'x'), bearer('not-a-configured-token-0123')],
    ];
    for (const [body, headers] of refused) {
      const res = await post(locked, 'register', body, headers);
      expect([res.status, res.body.code], JSON.stringify(res.body)).toEqual([403, 'credential_rejected']);
      expect(res.body.message).not.toContain(TRADE_TOKEN);
      expect(res.body.message).not.toContain(OPS_TOKEN);
    }
    expect(await instances(locked, 'prod')).toEqual([]);
    expect(await instances(locked, 'staging')).toEqual([]);

    expect((await post(locked, 'register', trade('prod', 't1'), bearer(TRADE_TOKEN))).body.code).toBe('ok');
    expect((await post(locked, 'register', trade('staging', 's1', 'anything.goes.here.x.api'), bearer(OPS_TOKEN))).body.code).toBe('ok');
    const id = { namespace: 'prod', service: 'company.trade.order.oc.api', instanceId: 't1' };
    expect((await post(locked, 'deregister', id)).body.code).toBe('credential_required');
    expect((await post(locked, 'deregister', id, bearer(OPS_TOKEN))).body.code).toBe('credential_rejected');
    expect((await post(locked, 'heartbeat', id, bearer(OPS_TOKEN))).body.code).toBe('credential_rejected');
    expect((await instances(locked, 'prod')).map((i) => i.instanceId)).toEqual(['t1']);
    expect((await post(locked, 'heartbeat', id, bearer(TRADE_TOKEN))).body.code).toBe('ok');
    expect((await post(locked, 'deregister', id, bearer(TRADE_TOKEN))).body.code).toBe('ok');
  });

  it('a seed-style config without write tokens keeps open registration for other services and says so at start-up', { timeout: 30_000 }, async () => {
    expect(open.stderr()).toMatch(/WARNING: open registration: no write token is configured/);
    expect(locked.stderr()).not.toMatch(/open registration/);
    expect(locked.stderr()).toContain('write tokens on: trade, ops');
    for (const s of [locked, open, capped]) expect(s.stderr()).not.toMatch(new RegExp(`${TRADE_TOKEN}|${OPS_TOKEN}`));
    expect((await post(open, 'register', trade('prod', 'o1'))).body.code).toBe('ok');
    expect((await post(open, 'deregister', { namespace: 'prod', service: 'company.trade.order.oc.api', instanceId: 'o1' })).body.code).toBe('ok');
    // Open does not mean "any bearer": a credential that is sent must be valid.
    expect((await post(open, 'register', trade('prod', 'o2'), bearer('made-up-token-0123456789'))).body.code).toBe('credential_rejected');
  });
});

describe('watch streams are capped (item 13)', () => {
  const watchUrl = (r: RegistryProcess) => `${r.httpUrl}/api/v1/registry/watch?namespace=caps`;
  const replUrl = (r: RegistryProcess) => `${r.httpUrl}/internal/v1/replication/watch?namespace=caps`;
  const openStream = async (url: string, local: string, headers: Record<string, string> = {}) => {
    const s = await SseClient.open(url, headers, local);
    streams.push(s);
    return s;
  };

  it('per client 429 too_many_watches, in total 503 watch_capacity_reached, with Retry-After; a freed stream lets a new one in', { timeout: 60_000 }, async () => {
    const a1 = await openStream(watchUrl(capped), '127.0.0.1');
    const a2 = await openStream(replUrl(capped), '127.0.0.1', bearer(TOKENS.replication));
    expect([a1.status, a2.status]).toEqual([200, 200]);
    const a3 = await openStream(watchUrl(capped), '127.0.0.1');
    expect(a3.status).toBe(429);
    expect(a3.headers['retry-after']).toBe('5');
    const a3Body = JSON.parse(a3.body);
    expect(a3Body.code).toBe('too_many_watches');
    expect(a3Body.message).toContain('max_watches_per_client = 2');
    // The replication watch counts too; its token is checked before the cap.
    expect((await openStream(replUrl(capped), '127.0.0.1')).status).toBe(401);

    const b1 = await openStream(watchUrl(capped), '127.0.0.2');
    expect(b1.status).toBe(200);
    const c1 = await openStream(watchUrl(capped), '127.0.0.3');
    expect(c1.status).toBe(503);
    expect(c1.headers['retry-after']).toBe('5');
    expect(JSON.parse(c1.body)).toMatchObject({ code: 'watch_capacity_reached', message: expect.stringContaining('max_watches = 3') });

    // Streams that are open keep working.
    expect((await post(capped, 'register', regBody('caps', 'i1'))).body.code).toBe('ok');
    await a1.waitFor('upsert', (e) => e.some((x) => x.event === 'upsert'));
    await b1.waitFor('upsert', (e) => e.some((x) => x.event === 'upsert'));

    b1.close();
    const deadline = Date.now() + 10_000;
    let c2: SseClient;
    for (;;) {
      c2 = await openStream(watchUrl(capped), '127.0.0.3');
      if (c2.status === 200 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(c2.status).toBe(200);
    a1.close();
    let a4: SseClient;
    for (;;) {
      a4 = await openStream(watchUrl(capped), '127.0.0.1');
      if (a4.status === 200 || Date.now() > deadline + 10_000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(a4.status).toBe(200);
    const status = await call(capped.adminUrl, 'GET', '/admin/v1/replication/status', undefined, bearer(TOKENS.admin));
    expect(status.body.data.registry.watchStreams).toBe(3);
  });
});
