import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from './cluster.ts';
import { noRetryClient } from './no-retry.ts';
import { isHaltedState, threadStates } from './stopped-threads.ts';

let cluster: EtcdCluster;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
}, 60_000);

afterAll(async () => {
  await cluster?.close();
}, 30_000);

function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('EtcdCluster', () => {
  it('starts members on loopback with one agreed leader', async () => {
    expect(cluster.members).toHaveLength(3);
    for (const m of cluster.members) expect(m.clientURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const leader = await cluster.leader();
    expect(cluster.members.map((m) => m.name)).toContain(leader);
    const client = noRetryClient(cluster.endpoints());
    try {
      await client.put('harness').value('ok').exec();
      expect(await client.get('harness').string()).toBe('ok');
    } finally {
      client.close();
    }
  });

  it('SIGKILLs the leader, elects another, and restarts it from its data dir', { timeout: 60_000 }, async () => {
    const leader = await cluster.leader();
    await cluster.kill(leader);
    expect(cluster.member(leader).state).toBe('killed');
    expect(await cluster.waitForLeader(30_000)).not.toBe(leader);
    await cluster.restart(leader);
    await cluster.waitForLeader(30_000);
    expect(await cluster.status(leader)).toBeDefined();
  });

  it('SIGSTOP makes a member silent until SIGCONT', { timeout: 60_000 }, async () => {
    const name = cluster.members[0]!.name;
    cluster.stop(name);
    try {
      // stop() returns only once no thread of etcd can answer any more.
      expect(threadStates(cluster.member(name).process!.pid!).every(isHaltedState)).toBe(true);
      expect(await cluster.status(name, 800)).toBeUndefined();
    } finally {
      cluster.cont(name);
    }
    await cluster.waitForLeader(30_000);
    expect(await cluster.status(name)).toBeDefined();
  });

  it('adds a learner, promotes it and removes it', { timeout: 90_000 }, async () => {
    const m = await cluster.addMember('m4');
    expect(m.isLearner).toBe(true);
    await cluster.promote('m4');
    const list = await cluster.memberList();
    expect(list.find((x) => x.id === m.id)?.isLearner).toBe(false);
    await cluster.removeMember('m4');
    expect((await cluster.memberList()).map((x) => x.id)).not.toContain(m.id);
    expect(cluster.member('m4').state).toBe('removed');
  });

  it('close() kills every process', { timeout: 30_000 }, async () => {
    const extra = await EtcdCluster.start({ size: 1 });
    const pid = extra.members[0]!.process?.pid;
    expect(alive(pid)).toBe(true);
    await extra.close();
    expect(alive(pid)).toBe(false);
  });
});

describe('EtcdCluster.start with members that cannot run', () => {
  it('fails at once with the reason, not after the start timeout', { timeout: 20_000 }, async () => {
    const started = Date.now();
    await expect(EtcdCluster.start({ size: 1, etcdBin: '/bin/false', startTimeoutMs: 15_000 })).rejects.toThrow(/etcd member m1 exited with code 1/);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
