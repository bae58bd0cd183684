/**
 * A 5-member etcd cluster: FAULT-002 (a paused minority does not stop the majority; a
 * minority alone refuses writes) and MEM-003 (5 → 3 by two sequential removals).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster, noRetryClient, waitFor } from '@orrery/etcdcluster';
import type { RunningRegistry } from './server.ts';
import type { Instance } from './model/instance.ts';
import type { MemberView } from './admin/cluster-admin.ts';
import { admin, call, regBody, startTestRegistry } from './testing/fixture.ts';

let cluster: EtcdCluster;
let registry: RunningRegistry;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 5 });
  registry = await startTestRegistry(cluster.endpoints(), ['--request-timeout', '3s']);
}, 90_000);

afterAll(async () => {
  await registry?.close();
  await cluster?.close();
}, 60_000);

const register = (ns: string, id: string) => call(registry.httpUrl, 'POST', '/api/v1/registry/register', regBody(ns, id, { leaseTtlSeconds: 300 }));

describe('five members', () => {
  it('FAULT-002: the majority serves while two members are cut off; the two alone refuse writes', { timeout: 120_000 }, async () => {
    const leader = await cluster.leader();
    // Cut off two members, one of them the leader, so the majority also has to elect.
    const minority = [leader, cluster.members.find((m) => m.name !== leader)!.name];
    for (const m of minority) cluster.stop(m);
    try {
      const elected = await cluster.waitForLeader(60_000);
      expect(minority).not.toContain(elected);
      await waitFor('registry writes on the majority', 60_000, async () => ((await register('fault2', 'majority').catch(() => undefined))?.body.code === 'ok' ? true : undefined));
      // Reads may be refused for a moment while the registry moves its watch off a paused member.
      const q = await waitFor('a linearizable query on the majority', 30_000, async () => {
        const r = await call(registry.httpUrl, 'GET', '/api/v1/registry/instances?namespace=fault2');
        return r.body.code === 'ok' ? r : undefined;
      });
      expect(q.body.data.instances.map((i: Instance) => i.instanceId)).toEqual(['majority']);
    } finally {
      for (const m of minority) cluster.cont(m);
    }
    await cluster.waitForLeader(60_000);
    // Now the other way round: pause three, and the two left (a minority) must not accept writes.
    const majority = cluster.members.filter((m) => !minority.includes(m.name)).map((m) => m.name);
    for (const m of majority) cluster.stop(m);
    try {
      const direct = noRetryClient(minority.map((m) => cluster.member(m).clientURL), 3000);
      try {
        await expect(direct.put('fault2/minority').value('x').exec()).rejects.toThrow();
        // A linearizable read cannot be served by a minority either.
        await expect(direct.get('fault2/minority').exec()).rejects.toThrow();
      } finally {
        direct.close();
      }
    } finally {
      for (const m of majority) cluster.cont(m);
    }
    await cluster.waitForLeader(60_000);
    await waitFor('writes after healing', 60_000, async () => ((await register('fault2', 'healed').catch(() => undefined))?.body.code === 'ok' ? true : undefined));
  });

  it('MEM-003: 5 → 3 as two sequential safe removals through the admin API', { timeout: 120_000 }, async () => {
    await register('mem3', 'kept');
    const status = async () => (await admin(registry, 'GET', '/admin/v1/status')).body.data;
    for (let round = 0; round < 2; round++) {
      const st = await status();
      // Remove a follower; each removal is one etcd conf change, applied before the next starts.
      const victim = st.members.find((m: MemberView) => !m.isLeader && m.reachable);
      await waitFor(`remove ${victim.name}`, 60_000, async () => {
        const r = await admin(registry, 'POST', '/admin/v1/members/remove', { id: victim.id });
        if (r.body.code === 'ok') return true;
        expect(r.body.message).toMatch(/healthy|leader|answer|reach/i);
        return undefined;
      });
      await cluster.markRemoved(victim.name);
      await cluster.waitForLeader(60_000);
      expect((await status()).members).toHaveLength(4 - round);
    }
    const st = await status();
    expect(st.members.filter((m: MemberView) => m.reachable)).toHaveLength(3);
    expect(st.members.filter((m: MemberView) => m.isLeader)).toHaveLength(1);
    expect((await register('mem3', 'after')).body.code).toBe('ok');
    const q = await call(registry.httpUrl, 'GET', '/api/v1/registry/instances?namespace=mem3');
    expect(q.body.data.instances.map((i: Instance) => i.instanceId)).toEqual(['after', 'kept']);
  });
});
