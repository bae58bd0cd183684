/**
 * Issue 21, item 1: expired instances are not served. The seed: queries skip, by default,
 * instances whose lease TTL passed without renewal. etcd does not keep a lease's remaining time
 * across a restart — it gives every lease its whole TTL again — so after a restart etcd alone
 * would keep serving a dead worker for up to one more TTL. The registry judges the TTL itself,
 * from the record's last renewal: queries, watch snapshots and Prometheus SD drop the instance
 * at its TTL, a live watch gets its `delete` then, and `includeExpired=true` still shows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster, noRetryClient, waitFor } from '@orrery/etcdcluster';
import type { RunningRegistry } from './server.ts';
import { call, regBody, SseClient, startTestRegistry, TOKENS, type Loose } from './testing/fixture.ts';

let cluster: EtcdCluster;
let registry: RunningRegistry;
const streams: SseClient[] = [];

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 1 });
  // The sweep is kept out of the way (1 h): what hides the instance here must be the TTL rule.
  registry = await startTestRegistry(cluster.endpoints(), ['--registry-cleanup-interval', '1h'], { keepAliveMs: 300 });
}, 60_000);

afterAll(async () => {
  for (const s of streams) s.close();
  await registry?.close();
  await cluster?.close();
}, 60_000);

const NS = 'expiry';
const TTL = 12;
const keyOf = (id: string) => `/orrery/registry/i/${NS}/company.test.order.order-center.api/${id}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const open = async (qs: string): Promise<SseClient> => {
  const s = await SseClient.open(`${registry.httpUrl}/api/v1/registry/watch?${qs}`);
  streams.push(s);
  return s;
};
const ids = (instances: Array<{ instanceId: string }>) => instances.map((i) => i.instanceId).sort();
async function answers(extra = ''): Promise<{ query: string[]; sd: string[]; snapshot: string[] }> {
  const q = await call(registry.httpUrl, 'GET', `/api/v1/registry/instances?namespace=${NS}${extra}`);
  expect(q.body.code).toBe('ok');
  const sd = await call(registry.httpUrl, 'GET', `/internal/v1/prometheus/sd?namespace=${NS}${extra}`, undefined, { authorization: `Bearer ${TOKENS.sd}` });
  expect(sd.status).toBe(200);
  const w = await open(`namespace=${NS}${extra}`);
  await w.waitFor('snapshot', (evs) => evs.length > 0);
  w.close();
  return {
    query: ids(q.body.data.instances),
    sd: (sd.body as unknown as Loose[]).map((g) => g.labels.instance_id as string).sort(),
    snapshot: ids(w.events[0]!.data.instances),
  };
}

describe('instances whose TTL passed without renewal', () => {
  it('leave queries, snapshots, Prometheus SD and live watches at their TTL although etcd restored their lease', { timeout: 120_000 }, async () => {
    const dead = await call(registry.httpUrl, 'POST', '/api/v1/registry/register', regBody(NS, 'dead', { leaseTtlSeconds: TTL }));
    expect(dead.body.code).toBe('ok');
    const stampedAt: number = dead.body.data.instance.lastHeartbeatAt;
    expect((await call(registry.httpUrl, 'POST', '/api/v1/registry/register', regBody(NS, 'alive', { leaseTtlSeconds: TTL }))).body.code).toBe('ok');
    // A live worker: renews every second (through the etcd outage too; those renewals fail).
    let renewing = true;
    const renewals = (async () => {
      while (renewing) {
        await call(registry.httpUrl, 'POST', '/api/v1/registry/heartbeat', { namespace: NS, service: 'company.test.order.order-center.api', instanceId: 'alive' }, {}, 3000).catch(() => undefined);
        await sleep(1000);
      }
    })();
    const live = await open(`namespace=${NS}`);
    await live.waitFor('snapshot', (evs) => evs.length > 0);

    // etcd restarts while "dead" is within its TTL: etcd gives its lease the whole TTL again.
    const [member] = cluster.members.map((m) => m.name);
    await cluster.kill(member!);
    // Long enough that etcd's restored full TTL outlasts the worker's TTL by more than the checks need.
    await sleep(3000);
    await cluster.restart(member!);
    await cluster.waitForLeader(60_000);
    const probe = noRetryClient(cluster.endpoints()[0]!, 2000);
    try {
      // Right after the restart etcd may answer before its lessor took the leases back (a TTL of
      // -1 or an unavailable error): ask until it reports the restored lease.
      const ttl = await waitFor('etcd reports the restored lease', 20_000, async () => {
        const lease = await probe.leaseClient.leaseTimeToLive({ ID: BigInt(`0x${dead.body.data.instance.leaseId}`).toString() }).catch(() => undefined);
        return lease && Number(lease.TTL) > 0 ? Number(lease.TTL) : undefined;
      });
      const etcdExpiresAt = Date.now() + ttl * 1000;
      // The premise: etcd would keep the record well past the TTL the worker was given.
      expect(etcdExpiresAt).toBeGreaterThan(stampedAt + TTL * 1000 + 2000);

      // Before its TTL: served everywhere.
      await waitFor('the registry serves again after the restart', 20_000, async () => {
        const q = await call(registry.httpUrl, 'GET', `/api/v1/registry/instances?namespace=${NS}`);
        return q.body.code === 'ok' ? true : undefined;
      });
      expect((await answers()).query).toEqual(['alive', 'dead']);
      expect(Date.now()).toBeLessThan(stampedAt + TTL * 1000);

      // At its TTL (plus the registry's 1 s allowance for stamp resolution and clock skew): gone.
      await waitFor('"dead" gone from queries', 15_000, async () => ((await answers()).query.includes('dead') ? undefined : true), undefined, 100);
      const goneAt = Date.now();
      expect(goneAt).toBeGreaterThan(stampedAt + TTL * 1000);
      expect(goneAt).toBeLessThan(stampedAt + TTL * 1000 + 2500);
      const after = await answers();
      expect(after).toEqual({ query: ['alive'], sd: ['alive'], snapshot: ['alive'] });
      // etcd still holds the record: the answers are the registry's TTL rule, not etcd's expiry.
      expect(await probe.get(keyOf('dead')).string()).not.toBeNull();
      expect(Date.now()).toBeLessThan(etcdExpiresAt);

      // The escape hatch.
      const all = await answers('&includeExpired=true');
      expect(all).toEqual({ query: ['alive', 'dead'], sd: ['alive', 'dead'], snapshot: ['alive', 'dead'] });

      // A live watch was told at the TTL, once, and not again when etcd finally drops the record.
      await live.waitFor('delete of "dead"', () => live.events.some((e) => e.event === 'delete' && e.data.instance.instanceId === 'dead'));
      const deletedAt = Date.now();
      expect(deletedAt).toBeLessThan(etcdExpiresAt);
      await waitFor('etcd drops the record', 30_000, async () => ((await probe.get(keyOf('dead')).string()) === null ? true : undefined));
      await sleep(500);
      expect(live.events.filter((e) => e.event === 'delete').map((e) => e.data.instance.instanceId)).toEqual(['dead']);
      // The live worker was never dropped.
      expect((await answers()).query).toEqual(['alive']);
    } finally {
      renewing = false;
      await renewals;
      probe.close();
    }
  });
});
