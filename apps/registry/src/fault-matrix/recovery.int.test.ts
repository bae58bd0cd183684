/**
 * The seed's recovery and fault rows on one 3-member etcd cluster in network namespaces (root),
 * with the real registry binary on the host, which reaches every member: a follower
 * crash, every restart order, REC-003 (catch-up by log and by snapshot), REC-002 (a restart in
 * the middle of a snapshot transfer), FAULT-003 (a damaged WAL:
 * the member refuses to start, the cluster serves, the member is replaced) and REC-004 (a
 * removed member restarted on its old data dir does not come back). Snapshots are cheap here
 * (`--snapshot-count 50`, 20 catch-up entries). The tests
 * run in file order and leave the cluster as the next one expects (three voters, one leader);
 * REC-004 runs last because it leaves two; FAULT-003 damages the member REC-002 interrupted
 * (after an interrupted transfer etcd's 5 s health rule may refuse to admit a new member for a while). Without root this file fails in beforeAll.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster, noRetryClient, preferredEtcdBin, waitFor } from '@orrery/etcdcluster';
import type { Instance } from '../model/instance.ts';
import type { MemberView } from '../admin/cluster-admin.ts';
import { admin, call, regBody, spawnRegistry, type RegistryProcess } from '../testing/fixture.ts';
import { snapshotCounters } from './snapshot-metrics.ts';
import { corruptWalRecord } from './wal-corruption.ts';

let cluster: EtcdCluster;
let registry: RegistryProcess;

beforeAll(async () => {
  cluster = await EtcdCluster.start({
    size: 3,
    network: 'netns',
    etcdBin: preferredEtcdBin(),
    extraArgs: ['--snapshot-count', '50', '--snapshot-catchup-entries', '20'],
  });
  // On the host: it reaches every member (partitions here cut only etcd members off each other),
  // and its admin API answers loopback callers only.
  registry = await spawnRegistry(cluster.endpoints(), ['--request-timeout', '2s']);
}, 60_000);

afterAll(async () => {
  await cluster?.network?.heal();
  await registry?.stop('SIGKILL');
  await cluster?.close();
}, 60_000);

const NS = 'recovery';
/** What the registry must still answer after every fault: id → the revision its register returned. */
const acknowledged = new Map<string, number>();

async function register(id: string): Promise<void> {
  const r = await waitFor(`register ${id}`, 30_000, async () => {
    const res = await call(registry.httpUrl, 'POST', '/api/v1/registry/register', regBody(NS, id, { leaseTtlSeconds: 600 }), {}, 5000).catch(() => undefined);
    return res?.body.code === 'ok' ? res : undefined;
  });
  acknowledged.set(id, r.body.data.revision);
}

/** Every acknowledged instance is answered, at the revision of its register (nothing lost, nothing replayed twice). */
async function expectIntact(): Promise<void> {
  const q = await waitFor('a query', 30_000, async () => {
    const res = await call(registry.httpUrl, 'GET', `/api/v1/registry/instances?namespace=${NS}`, undefined, {}, 5000).catch(() => undefined);
    return res?.body.code === 'ok' ? res : undefined;
  });
  const got = new Map(q.body.data.instances.map((i: Instance) => [i.instanceId, i.revision]));
  expect(got).toEqual(acknowledged);
}

const running = () => cluster.members.filter((m) => m.state === 'running').map((m) => m.name);
async function aFollower(which: 'first' | 'last' = 'first'): Promise<string> {
  const leader = await cluster.leader();
  const followers = running().filter((n) => n !== leader);
  return (which === 'first' ? followers[0] : followers.at(-1))!;
}

/** Waits until `name` has applied everything the leader had committed when this was called. */
async function caughtUp(name: string, timeoutMs = 30_000): Promise<void> {
  const leader = await cluster.leader();
  const target = (await cluster.status(leader))!.raftIndex;
  await waitFor(`${name} to apply index ${target}`, timeoutMs, async () => {
    const s = await cluster.status(name);
    return s && s.raftAppliedIndex >= target ? true : undefined;
  });
}

/** `count` puts of `size` bytes straight into etcd (volume for snapshots, outside the registry's keys). */
async function fill(count: number, size = 64, except?: string): Promise<void> {
  const client = noRetryClient(running().filter((n) => n !== except).map((n) => cluster.member(n).clientURL), 10_000);
  try {
    const value = Buffer.alloc(size, 0x61);
    for (let i = 0; i < count; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, count - i) }, (_, j) => client.put(`fault-matrix/fill/${i + j}`).value(value).exec()));
    }
  } finally {
    client.close();
  }
}
/**
 * Leaves `f` far behind until the leader answers with a snapshot: cut off with connection resets
 * (with silent loss the leader keeps streaming entries into socket buffers, and the follower gets
 * them all after healing), `write` while it is away, wait, heal. etcd compacts its raft log on
 * its own schedule, a little after its snapshots, and shows no metric for it: a round healed
 * before that catches up from the log, so up to three rounds. With `inFlight` a round counts
 * only if the transfer is seen under way (it returns then, with the snapshot still in flight),
 * else once `f` installed one. `beforeHeal` runs while `f` is still cut off.
 */
async function lagUntilSnapshot(f: string, write: () => Promise<void>, opts: { inFlight?: boolean; beforeHeal?: () => Promise<void> } = {}): Promise<void> {
  const url = cluster.member(f).clientURL;
  const id = (await cluster.waitServing(f)).id;
  const before = (await snapshotCounters(url)).received;
  const outcomes: string[] = [];
  for (let round = 1; round <= 3; round++) {
    await cutOff(f, 'reject');
    try {
      await write();
      await new Promise((r) => setTimeout(r, 3000));
      await opts.beforeHeal?.();
    } finally {
      await cluster.network!.heal();
    }
    const leader = await cluster.leader();
    const leaderURL = cluster.member(leader).clientURL;
    const target = (await cluster.status(leader))!.raftIndex;
    const how = await waitFor(`${f} to catch up (round ${round})`, 30_000, async () => {
      // The leader's link is not slowed: its count of transfers in flight is the prompt signal.
      if ((await snapshotCounters(leaderURL, id).catch(() => undefined))?.sending) return 'in flight';
      const st = await cluster.status(f);
      if (!st || st.raftAppliedIndex < target) return undefined;
      const c = await snapshotCounters(url).catch(() => undefined);
      return c && c.received > before ? 'installed' : 'log';
    }, undefined, 20);
    outcomes.push(how);
    if (how === 'in flight' || (how === 'installed' && !opts.inFlight)) {
      if (!opts.inFlight) await caughtUp(f);
      return;
    }
  }
  throw new Error(`${f} was left far behind 3 times without a snapshot transfer seen under way: ${outcomes.join(', ')}`);
}

/** An admin call retried until it answers ok; on timeout the last answer is the explanation. */
async function adminUntilOk(what: string, path: string, body: unknown, timeoutMs = 30_000) {
  let last = '';
  return waitFor(what, timeoutMs, async () => {
    const r = await admin(registry, 'POST', path, body);
    last = `${r.status} ${JSON.stringify(r.body)}`;
    return r.body.code === 'ok' ? r : undefined;
  }, () => `last answer: ${last}`, 500);
}

/** A lone restarted member answers no client request (it has no quorum): wait for its peer listener instead. */
async function peerListening(name: string): Promise<void> {
  const m = cluster.member(name);
  const url = new URL(m.peerURL);
  await waitFor(`${name} to listen for peers`, 20_000, async () => {
    if (m.exit) throw new Error(cluster.exitReason(name));
    return new Promise<true | undefined>((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(undefined));
    });
  }, undefined, 50);
}

async function cutOff(name: string, how: 'drop' | 'reject' = 'drop'): Promise<void> {
  await cluster.network!.partition([[name], cluster.members.filter((m) => m.name !== name && m.state !== 'removed').map((m) => m.name)], how);
}

describe('crashes and restarts', () => {
  it('a follower killed -9 and restarted catches up; writes never stopped', { timeout: 60_000 }, async () => {
    await register('before-crash');
    const f = await aFollower();
    await cluster.kill(f);
    await register('while-down');
    await cluster.restart(f);
    await cluster.waitServing(f);
    await caughtUp(f);
    await expectIntact();
  });

  it('all three stopped, then restarted in each of the 6 orders: serves, data intact', { timeout: 120_000 }, async () => {
    const names = running();
    expect(names).toHaveLength(3);
    const orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]].map((o) => o.map((i) => names[i]!));
    for (const [round, order] of orders.entries()) {
      await register(`round-${round}`);
      await Promise.all(names.map((n) => cluster.kill(n)));
      // The first alone has no quorum; the second makes one (the two elect); the third joins late.
      await cluster.restart(order[0]!);
      await peerListening(order[0]!);
      await cluster.restart(order[1]!);
      await cluster.waitForLeader(30_000);
      await cluster.restart(order[2]!);
      await cluster.waitForLeader(30_000);
      await caughtUp(order[2]!);
      await expectIntact();
    }
  });
});

describe('REC-003: a lagging follower, a little behind', () => {
  it('a little behind, it catches up from the log (no snapshot sent)', { timeout: 60_000 }, async () => {
    const f = await aFollower();
    const before = await snapshotCounters(cluster.member(f).clientURL);
    await cutOff(f);
    try {
      for (let i = 0; i < 3; i++) await register(`log-${i}`);
    } finally {
      await cluster.network!.heal();
    }
    await caughtUp(f);
    expect((await snapshotCounters(cluster.member(f).clientURL)).received).toBe(before.received);
    await expectIntact();
  });
});

describe('REC-003 far behind, and REC-002: a snapshot transfer interrupted', () => {
  it('far behind, the follower is sent a snapshot; killed -9 mid-transfer and restarted, it gets a whole one again and catches up', { timeout: 120_000 }, async () => {
    const f = await aFollower('last');
    let n = 0;
    try {
      // REC-003: cut off while the leader compacts its log past it, it is sent a snapshot.
      await lagUntilSnapshot(
        f,
        async () => {
          await register(`far-${n++}`);
          // ~1 MB of state, and enough entries (`--snapshot-count 50`) that the leader compacts past the follower.
          await fill(40, 24_000, f);
          await fill(200, 64, f);
        },
        // Slow enough that the transfer lasts seconds: there is a moment to kill it in.
        { inFlight: true, beforeHeal: () => cluster.network!.limitIngress(f, '2mbit') },
      );
      // REC-002: the transfer is cut short by a crash of the receiver.
      await cluster.kill(f);
    } finally {
      await cluster.network!.limitIngress(f, undefined);
    }
    await cluster.restart(f);
    await cluster.waitServing(f);
    await caughtUp(f);
    // The new process got its state from a complete snapshot, sent again.
    expect((await snapshotCounters(cluster.member(f).clientURL)).received).toBeGreaterThanOrEqual(1);
    await expectIntact();
  });
});

describe('FAULT-003: a damaged WAL', () => {
  it('the member refuses to start with the reason, the cluster keeps serving, the member is replaced', { timeout: 90_000 }, async () => {
    const f = await aFollower('last');
    await cluster.status(f);
    const id = cluster.member(f).id!;
    await cluster.kill(f);
    corruptWalRecord(cluster.member(f).dataDir);
    await cluster.restart(f);
    await expect(cluster.waitServing(f, 20_000)).rejects.toThrow(new RegExp(`etcd member ${f} exited with code \\d+: .*walpb: crc mismatch.*\\.wal`));
    await register('while-wal-damaged');
    // Replace it through the registry's admin API: remove the damaged member …
    await adminUntilOk(`remove ${f}`, '/admin/v1/members/remove', { id });
    await cluster.markRemoved(f);
    // … and add a fresh one (new data dir) as a learner, then promote it once it caught up.
    const name = `m${cluster.members.length + 1}`;
    const fresh = await cluster.prepareMember(name);
    const add = await adminUntilOk(`add ${name}`, '/admin/v1/members/add-learner', { name, peerURL: fresh.peerURL }, 60_000);
    cluster.startPrepared(name, add.body.data.initialCluster, { learner: true, id: add.body.data.member.id });
    await adminUntilOk(`promote ${name}`, '/admin/v1/members/promote', { id: add.body.data.member.id }, 60_000);
    cluster.markVoter(name);
    await cluster.waitForLeader(30_000);
    await caughtUp(name);
    const st = (await admin(registry, 'GET', '/admin/v1/status')).body.data;
    expect(st.members.map((m: MemberView) => [m.name, m.isLearner]).sort()).toEqual(running().map((n) => [n, false]).sort());
    await expectIntact();
  });
});

describe('REC-004: a removed member', () => {
  it('restarted on its old data dir, it does not rejoin as a voter', { timeout: 60_000 }, async () => {
    const f = await aFollower();
    await cluster.status(f);
    const id = cluster.member(f).id!;
    await adminUntilOk(`remove ${f}`, '/admin/v1/members/remove', { id });
    await cluster.markRemoved(f);
    await register('after-removal');
    await cluster.restart(f);
    // The peers answer its messages with "removed"; it stops by itself.
    await waitFor(`${f} to stop`, 30_000, async () => (cluster.member(f).exit ? true : undefined));
    const log = cluster.member(f).logTail.join('\n');
    expect(log, log).toMatch(/removed/i);
    const list = await cluster.memberList();
    expect(list.map((m) => m.id)).not.toContain(id);
    expect(list).toHaveLength(2);
    expect(list.every((m) => !m.isLearner)).toBe(true);
    await register('after-restart-of-removed');
    await expectIntact();
  });
});
