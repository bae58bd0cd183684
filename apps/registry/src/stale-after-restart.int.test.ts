/**
 * Workers that died while etcd was down. etcd restores every lease with its full TTL when it
 * restarts, so without the heartbeat stamp their records would live one more TTL after the
 * restart; the sweep purges them as soon as etcd is back, and keeps instances whose TTL has not
 * run out yet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster, noRetryClient, waitFor } from '@orrery/etcdcluster';
import type { RunningRegistry } from './server.ts';
import { call, regBody, startTestRegistry } from './testing/fixture.ts';

let cluster: EtcdCluster;
let registry: RunningRegistry;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 1 });
  registry = await startTestRegistry(cluster.endpoints(), ['--registry-cleanup-interval', '300ms']);
}, 60_000);

afterAll(async () => {
  await registry?.close();
  await cluster?.close();
}, 60_000);

const keyOf = (id: string) => `/orrery/registry/i/restart/company.test.order.order-center.api/${id}`;

describe('stale registrations after an etcd restart', () => {
  it('purges instances whose last heartbeat is older than their TTL, right after etcd is back', { timeout: 90_000 }, async () => {
    const dead = await call(registry.httpUrl, 'POST', '/api/v1/registry/register', regBody('restart', 'dead', { leaseTtlSeconds: 6 }));
    const alive = await call(registry.httpUrl, 'POST', '/api/v1/registry/register', regBody('restart', 'within-ttl', { leaseTtlSeconds: 120 }));
    expect(dead.body.code).toBe('ok');
    expect(alive.body.code).toBe('ok');
    const removedBefore = registry.sweeper.removed;

    const [member] = cluster.members.map((m) => m.name);
    await cluster.kill(member!);
    // Longer than 1.5 × 6 s + clock slack: the "dead" worker's TTL ran out while etcd was down.
    await new Promise((r) => setTimeout(r, 13_000));
    await cluster.restart(member!);
    await cluster.waitForLeader(60_000);
    const back = Date.now();

    const probe = noRetryClient(cluster.endpoints()[0]!, 2000);
    try {
      // The premise: etcd gave the lease its whole TTL again (it would keep the record ~6 s more).
      const ttl = await probe.leaseClient.leaseTimeToLive({ ID: BigInt(`0x${dead.body.data.instance.leaseId}`).toString() });
      expect(Number(ttl.TTL)).toBeGreaterThan(3);
      await waitFor('the dead worker purged', 10_000, async () => ((await probe.get(keyOf('dead')).string()) === null ? true : undefined));
      // Well before etcd's own expiry, and by the sweep (etcd's expiry would not count here).
      expect(Date.now() - back).toBeLessThan(4000);
      expect(registry.sweeper.removed).toBeGreaterThan(removedBefore);
      expect(await probe.get(keyOf('within-ttl')).string()).not.toBeNull();
    } finally {
      probe.close();
    }
  });
});
