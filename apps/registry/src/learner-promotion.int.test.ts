/**
 * Issue 21, item 3, on the registry's own admin API: `/admin/v1/members/promote` applies the
 * shared learner promotion rule (@orrery/spec learnerPromotion) over two polls of its own, against
 * a real etcd: a learner added to a running cluster is promoted once caught up; a learner that is
 * behind (paused with SIGSTOP while the leader takes a few thousand writes) is refused with 409
 * learner_not_caught_up naming applied, committed and lag; with force the promote is sent to etcd
 * (which refuses it itself, below its 90 % floor).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster, noRetryClient, waitFor } from '@orrery/etcdcluster';
import { checkRouteAnswer, REGISTRY_ADMIN_HTTP_API } from '@orrery/spec';
import type { MemberView } from './admin/cluster-admin.ts';
import type { RunningRegistry } from './server.ts';
import { admin as adminCall, startTestRegistry } from './testing/fixture.ts';

let cluster: EtcdCluster;
let registry: RunningRegistry;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 1 });
  registry = await startTestRegistry(cluster.endpoints());
}, 90_000);

afterAll(async () => {
  await registry?.close();
  await cluster?.close();
}, 60_000);

const admin = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
  const answer = await adminCall(registry, method, path, body);
  checkRouteAnswer(REGISTRY_ADMIN_HTTP_API, method, path, answer.status, answer.body);
  return answer;
};

/** `count` puts through the voter (outside the registry's prefix), 50 at a time. */
async function writeKeys(count: number): Promise<void> {
  const client = noRetryClient([cluster.member('m1').clientURL], 10_000);
  try {
    for (let i = 0; i < count; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => client.put(`promotion-test/${i + j}`).value('x').exec()));
    }
  } finally {
    client.close();
  }
}

describe('/admin/v1/members/promote applies the learner promotion rule', () => {
  it('refuses a learner that is behind (unless forced), promotes it once caught up', { timeout: 180_000 }, async () => {
    const m2 = await cluster.prepareMember('m2');
    // etcd refuses membership changes until its members have been healthy for ~5 s; that refusal is final, so asking again is safe.
    const add = await waitFor('add-learner', 30_000, async () => {
      const r = await admin('POST', '/admin/v1/members/add-learner', { name: 'm2', peerURL: m2.peerURL });
      return r.body.code === 'conf_change_failed' && /healthy for ~5 s/.test(r.body.message) ? undefined : r;
    }, undefined, 1000);
    expect(add.body.code, add.body.message).toBe('ok');
    const id: string = add.body.data.member.id;
    cluster.startPrepared('m2', add.body.data.initialCluster, { learner: true, id });
    await writeKeys(200);
    await waitFor('the learner to catch up', 60_000, async () => {
      const st = (await admin('GET', '/admin/v1/status')).body.data;
      const l = st.members.find((m: MemberView) => m.id === id);
      const leader = st.members.find((m: MemberView) => m.isLeader);
      return l?.reachable && leader && leader.raftIndex - l.raftAppliedIndex <= 10 ? true : undefined;
    });

    // Paused while the leader takes 3 000 writes: behind, and not answering its status call.
    cluster.stop('m2');
    try {
      await writeKeys(3000);
      const refused = await admin('POST', '/admin/v1/members/promote', { id });
      expect([refused.status, refused.body.code], refused.body.message).toEqual([409, 'learner_not_caught_up']);
      expect(refused.body.message).toMatch(new RegExp(`^learner ${id} may not be promoted yet \\(applied unknown, committed \\d+, lag unknown\\): .*not answering`));
      expect(Number(/committed (\d+)/.exec(refused.body.message)![1])).toBeGreaterThan(3000);
      // Still a learner: nothing was sent to etcd.
      expect((await cluster.memberList()).find((m) => m.name === 'm2')?.isLearner).toBe(true);

      // A bad force value is refused before anything is looked at.
      const badForce = await admin('POST', '/admin/v1/members/promote', { id, force: 'yes' });
      expect([badForce.status, badForce.body.code]).toEqual([400, 'bad_request']);

      // force skips the rule: the promote reaches etcd, which refuses a learner this far behind.
      const forced = await admin('POST', '/admin/v1/members/promote', { id, force: true });
      expect(forced.body.code, forced.body.message).toBe('conf_change_failed');
      expect(forced.body.message).toMatch(/forced past the promotion rule.*not caught up with the leader/);
    } finally {
      cluster.cont('m2');
    }

    // Once it has caught up (two polls ~1 s apart inside the request), the promote goes through.
    let last = '';
    await waitFor('the promote', 60_000, async () => {
      const p = await admin('POST', '/admin/v1/members/promote?force=false', { id });
      if (p.body.code === 'ok') {
        expect(p.body.data).toMatchObject({ promoted: id, forced: false });
        expect(p.body.data.lag).toBeLessThanOrEqual(100);
        return true;
      }
      last = `${p.body.code}: ${p.body.message}`;
      expect(p.body.code, p.body.message).toMatch(/learner_not_caught_up|conf_change_failed|not_ready|read_failed/);
      return undefined;
    }, () => last);
    cluster.markVoter('m2');
    expect((await cluster.memberList()).find((m) => m.name === 'm2')?.isLearner).toBe(false);

    // A voter is not promoted again.
    const again = await admin('POST', '/admin/v1/members/promote', { id });
    expect([again.status, again.body.code]).toEqual([409, 'conf_change_failed']);
    expect(again.body.message).toMatch(/not a learner/);
  });
});
