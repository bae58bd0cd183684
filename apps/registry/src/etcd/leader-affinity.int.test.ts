/**
 * Writes pinned to the etcd leader, on a real 3-member cluster: the pin follows the leader, a
 * write that certainly never left is sent again elsewhere, and any other failure is not repeated;
 * a read (the query barrier) is repeated on the all-members client after any failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Etcd3 } from 'etcd3';
import { EtcdCluster, waitFor } from '@orrery/etcdcluster';
import { dataClient } from './data-client.ts';
import { LeaderAffinity } from './leader-affinity.ts';

let cluster: EtcdCluster;
let all: Etcd3;
let affinity: LeaderAffinity;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
  all = dataClient(cluster.endpoints(), 2000, 4000);
  affinity = new LeaderAffinity(cluster.endpoints(), all, (endpoint) => dataClient([endpoint], 2000, 4000), { recheckMs: 500, retryMs: 200 });
}, 60_000);

afterAll(async () => {
  affinity?.close();
  all?.close();
  await cluster?.close();
});

/** Writes until the pin is on `endpoint` (probes run in the background of writes). */
async function pinnedTo(endpoint: string): Promise<void> {
  await waitFor(`writes pinned to ${endpoint}`, 30_000, async () => {
    await affinity.run((c) => c.put('affinity/probe').value('x').exec()).catch(() => undefined);
    return affinity.leaderEndpoint === endpoint ? true : undefined;
  });
}

describe('LeaderAffinity', () => {
  it('pins writes to the leader and follows it when the leader dies', { timeout: 90_000 }, async () => {
    const leader = await cluster.leader();
    await pinnedTo(cluster.member(leader).clientURL);
    await cluster.kill(leader);
    // The pinned connection is refused: never sent, so the write goes to the other members.
    await waitFor('a write after the leader died', 30_000, async () =>
      (await affinity.run((c) => c.put('affinity/after-kill').value('y').exec()).then(() => true).catch(() => undefined)),
    );
    const next = await cluster.waitForLeader(60_000);
    expect(next).not.toBe(leader);
    await pinnedTo(cluster.member(next).clientURL);
    expect(await all.get('affinity/after-kill').string()).toBe('y');
    await cluster.restart(leader);
    await cluster.waitForLeader(60_000);
  });

  it('sends a write that never left again, on the all-members client', async () => {
    await pinnedTo(cluster.member(await cluster.leader()).clientURL);
    const used: Etcd3[] = [];
    await affinity.run(async (c) => {
      used.push(c);
      if (used.length === 1) throw new Error('14 UNAVAILABLE: No connection established');
    });
    expect(used).toHaveLength(2);
    expect(used[1]).toBe(all);
    expect(affinity.leaderEndpoint).toBeUndefined();
  });

  it('never repeats a write whose answer was lost, and unpins', async () => {
    await pinnedTo(cluster.member(await cluster.leader()).clientURL);
    let calls = 0;
    await expect(
      affinity.run(async () => {
        calls++;
        throw new Error('4 DEADLINE_EXCEEDED: Deadline exceeded');
      }),
    ).rejects.toThrow(/DEADLINE/);
    expect(calls).toBe(1);
    expect(affinity.leaderEndpoint).toBeUndefined();
  });

  it('runs a read on the leader, and runs it again on the all-members client after any failure there', async () => {
    await pinnedTo(cluster.member(await cluster.leader()).clientURL);
    const used: Etcd3[] = [];
    const revision = await affinity.read(async (c) => {
      used.push(c);
      // A deadline on the pinned member: a write would not be repeated, a read is.
      if (used.length === 1) throw new Error('4 DEADLINE_EXCEEDED: Deadline exceeded');
      return Number((await c.kv.range({ key: Buffer.from('affinity/probe'), count_only: true })).header.revision);
    });
    expect(used).toHaveLength(2);
    expect(used[0]).not.toBe(all);
    expect(used[1]).toBe(all);
    expect(revision).toBeGreaterThan(0);
    expect(affinity.leaderEndpoint).toBeUndefined();
  });
});
