import { describe, expect, it } from 'vitest';
import { planMemberRestart } from './plan-member-restart.ts';

const a = { name: 'reg-1', peerURL: 'http://127.0.0.1:1001' };
const b = { name: 'reg-2', peerURL: 'http://127.0.0.1:1002' };
const c = { name: 'reg-3', peerURL: 'http://127.0.0.1:1003' };

describe('planMemberRestart', () => {
  it('a member with a WAL restarts as existing with the whole cluster etcd lists', () => {
    expect(planMemberRestart({ member: b, hasData: true, anyData: true, local: [a, b], etcdMembers: [a, b] })).toEqual({
      initialCluster: 'reg-1=http://127.0.0.1:1001,reg-2=http://127.0.0.1:1002',
      state: 'existing',
    });
  });

  it('a member with a WAL and no member answering restarts with itself (etcd reads the WAL)', () => {
    expect(planMemberRestart({ member: a, hasData: true, anyData: true, local: [a, b] })).toEqual({ initialCluster: 'reg-1=http://127.0.0.1:1001', state: 'existing' });
  });

  it('a member etcd removed is not resurrected from its data', () => {
    expect(planMemberRestart({ member: c, hasData: true, anyData: true, local: [a, b, c], etcdMembers: [a, b] })).toBeUndefined();
  });

  it('nothing written anywhere and nobody answering: the bootstrap starts again, every member as new', () => {
    expect(planMemberRestart({ member: a, hasData: false, anyData: false, local: [a, b, c] })).toEqual({
      initialCluster: 'reg-1=http://127.0.0.1:1001,reg-2=http://127.0.0.1:1002,reg-3=http://127.0.0.1:1003',
      state: 'new',
    });
  });

  it('a learner whose first start died before its WAL joins again with the whole cluster, not only itself', () => {
    // etcd lists a member that never started under an empty name: the backend's name is used.
    const listed = [a, { name: '', peerURL: b.peerURL }];
    expect(planMemberRestart({ member: b, hasData: false, anyData: true, local: [a, b], etcdMembers: listed })).toEqual({
      initialCluster: 'reg-1=http://127.0.0.1:1001,reg-2=http://127.0.0.1:1002',
      state: 'existing',
    });
  });

  it('no WAL, others have data, and etcd does not list it: left alone (the forget pass removes it)', () => {
    expect(planMemberRestart({ member: c, hasData: false, anyData: true, local: [a, b, c], etcdMembers: [a, b] })).toBeUndefined();
  });

  it('no WAL, others have data, nobody answering: waits (a join needs a cluster to answer)', () => {
    expect(planMemberRestart({ member: c, hasData: false, anyData: true, local: [a, b, c] })).toBeUndefined();
  });

  it('members etcd lists without a peer URL are left out of the initial cluster', () => {
    expect(planMemberRestart({ member: b, hasData: false, anyData: true, local: [a, b], etcdMembers: [a, b, { name: 'odd' }] })?.initialCluster).toBe(
      'reg-1=http://127.0.0.1:1001,reg-2=http://127.0.0.1:1002',
    );
  });
});
