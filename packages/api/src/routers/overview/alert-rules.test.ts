import { describe, expect, it } from 'vitest';
import {
  learnerLagAlerts,
  quotaAlerts,
  sortAlerts,
  stateSyncBackoffAlerts,
  teleportSpikeAlerts,
  TELEPORT_SPIKE_MIN,
  type Alert,
  type TeleportPoint,
} from './alert-rules.ts';

describe('quotaAlerts (> 90 % warning, ≥ 100 % critical)', () => {
  const ns = (keyspaces: Array<{ keyspace: string; keys: number; maxKeys: number }>, bytes = 0, byteBudget = 0) => ({ namespace: 'default', bytes, byteBudget, keyspaces });
  it('stays quiet at and below 90 %', () => {
    expect(quotaAlerts([ns([{ keyspace: 'a', keys: 90, maxKeys: 100 }], 900, 1000)])).toEqual([]);
  });
  it('warns just above 90 % and names the numbers and the state page', () => {
    expect(quotaAlerts([ns([{ keyspace: 'cart', keys: 91, maxKeys: 100 }])])).toEqual([
      { severity: 'warning', kind: 'keyspace-quota', message: 'keyspace default/cart holds 91 of 100 keys (91 %)', link: '/state/default?keyspace=cart' },
    ]);
  });
  it('is critical at the quota', () => {
    expect(quotaAlerts([ns([{ keyspace: 'cart', keys: 100, maxKeys: 100 }])])[0]!.severity).toBe('critical');
  });
  it('checks the namespace byte budget; 0 means no budget', () => {
    expect(quotaAlerts([ns([], 950, 1000)])).toEqual([
      { severity: 'warning', kind: 'namespace-quota', message: 'namespace default uses 950 of 1000 bytes (95 %)', link: '/state/default' },
    ]);
    expect(quotaAlerts([ns([], 2000, 1000)])[0]!.severity).toBe('critical');
    expect(quotaAlerts([ns([], 10_000, 0)])).toEqual([]);
  });
  it('ignores keyspaces without a key limit (undeclared)', () => {
    expect(quotaAlerts([ns([{ keyspace: 'x', keys: 50, maxKeys: 0 }])])).toEqual([]);
  });
});

describe('teleportSpikeAlerts', () => {
  const now = new Date('2026-11-30T12:30:20Z');
  const at = (minutesAgo: number, teleports: number, fn = 'cart'): TeleportPoint => ({
    namespace: 'default',
    function: fn,
    minute: new Date(Date.parse('2026-11-30T12:30:00Z') - minutesAgo * 60_000),
    teleports,
  });
  it('flags a burst in the current or the previous minute over a quiet baseline', () => {
    const a = teleportSpikeAlerts([at(0, 6)], now);
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ severity: 'warning', kind: 'teleport-spike', link: '/functions/default/cart#sticky' });
    expect(a[0]!.message).toContain('6 teleports in a minute');
    expect(teleportSpikeAlerts([at(1, 6)], now)).toHaveLength(1);
  });
  it('needs at least the minimum count', () => {
    expect(teleportSpikeAlerts([at(0, TELEPORT_SPIKE_MIN - 1)], now)).toEqual([]);
    expect(teleportSpikeAlerts([at(0, TELEPORT_SPIKE_MIN)], now)).toHaveLength(1);
  });
  it('does not flag a function that always teleports this much', () => {
    const steady = Array.from({ length: 58 }, (_, i) => at(i + 2, 6));
    expect(teleportSpikeAlerts([...steady, at(0, 6)], now)).toEqual([]);
    // 3× the baseline (6/min → 18) is a spike again
    expect(teleportSpikeAlerts([...steady, at(0, 18)], now)).toHaveLength(1);
    expect(teleportSpikeAlerts([...steady, at(0, 17)], now)).toEqual([]);
  });
  it('ignores points outside the window and old bursts', () => {
    expect(teleportSpikeAlerts([at(2, 50)], now)).toEqual([]); // older than the recent minutes: part of the baseline
    expect(teleportSpikeAlerts([at(61, 50), at(-1, 50)], now)).toEqual([]); // before the window / in the future
  });
  it('judges each function on its own', () => {
    const a = teleportSpikeAlerts([at(0, 9, 'a'), at(0, 1, 'b')], now);
    expect(a.map((x) => x.link)).toEqual(['/functions/default/a#sticky']);
  });
});

describe('learnerLagAlerts (the promotion rule: more than 100 entries behind, or below etcd\'s 90 %)', () => {
  const m = (name: string, role: 'voter' | 'learner', isLeader: boolean, raftIndex?: number, raftAppliedIndex?: number) => ({ name, role, isLeader, raftIndex, raftAppliedIndex });
  const cluster = (members: ReturnType<typeof m>[]) => [{ namespace: 'default', name: 'reg', members }];
  it('flags a learner far behind the leader with the lag, the indexes and what to wait for', () => {
    const a = learnerLagAlerts(cluster([m('r-1', 'voter', true, 10_000, 10_000), m('r-4', 'learner', false, 10_000, 9_500)]));
    expect(a).toEqual([
      {
        severity: 'warning',
        kind: 'learner-lag',
        message:
          "registry default/reg: learner r-4 is 500 entries behind the leader r-1 (applied 9500 of committed 10000); wait until it is within 100 entries of the leader's committed index, healthy, for 2 polls in a row under one leader",
        link: '/registry/default/reg',
      },
    ]);
  });
  it('95 % of the leader index (promotable under the old rule) is still behind; within 100 entries is not', () => {
    expect(learnerLagAlerts(cluster([m('r-1', 'voter', true, 10_000, 10_000), m('r-4', 'learner', false, 10_000, 9_899)]))).toHaveLength(1);
    expect(learnerLagAlerts(cluster([m('r-1', 'voter', true, 10_000, 10_000), m('r-4', 'learner', false, 10_000, 9_900)]))).toEqual([]);
  });
  it('a short log: within 100 entries but below etcd\'s 90 % floor is behind too', () => {
    expect(learnerLagAlerts(cluster([m('r-1', 'voter', true, 100, 100), m('r-4', 'learner', false, 100, 40)]))[0]!.message).toMatch(/60 entries behind .*below the 90 % etcd needs/);
    expect(learnerLagAlerts(cluster([m('r-1', 'voter', true, 100, 100), m('r-4', 'learner', false, 100, 90)]))).toEqual([]);
  });
  it('stays quiet for lagging voters', () => {
    expect(learnerLagAlerts(cluster([m('r-1', 'voter', true, 100, 100), m('r-2', 'voter', false, 100, 10)]))).toEqual([]);
  });
  it('treats a learner without an applied index as not caught up', () => {
    expect(learnerLagAlerts(cluster([m('r-1', 'voter', true, 1_000), m('r-4', 'learner', false)]))[0]!.message).toContain('1000 entries behind');
  });
  it('cannot measure lag without a leader index', () => {
    expect(learnerLagAlerts(cluster([m('r-1', 'voter', false, 100, 100), m('r-4', 'learner', false, 100, 1)]))).toEqual([]);
    expect(learnerLagAlerts(cluster([m('r-1', 'voter', true), m('r-4', 'learner', false, 100, 1)]))).toEqual([]);
  });
  it('a leader at index 0 leaves nothing to catch up', () => {
    expect(learnerLagAlerts(cluster([m('r-1', 'voter', true, 0, 0), m('r-4', 'learner', false, 0, 0)]))).toEqual([]);
  });
});

describe('stateSyncBackoffAlerts', () => {
  const sync = (replicas: Array<{ replica: string; syncable?: string; backoffSeconds: number; lastError?: string }>) => [{ namespace: 'default', name: 'routers', replicas }];
  it('flags each replica backing off, critical from a minute', () => {
    const a = stateSyncBackoffAlerts(
      sync([
        { replica: 'router-a', backoffSeconds: 0 },
        { replica: 'router-b', syncable: 'sticky-owners', backoffSeconds: 20, lastError: 'ECONNREFUSED' },
        { replica: 'router-c', backoffSeconds: 60 },
      ]),
    );
    expect(a).toEqual([
      { severity: 'warning', kind: 'statesync-backoff', message: 'statesync default/routers: replica router-b/sticky-owners backing off 20 s after: ECONNREFUSED', link: '/statesync/default/routers' },
      { severity: 'critical', kind: 'statesync-backoff', message: 'statesync default/routers: replica router-c backing off 60 s', link: '/statesync/default/routers' },
    ]);
  });
  it('stays quiet when nobody backs off', () => {
    expect(stateSyncBackoffAlerts(sync([{ replica: 'a', backoffSeconds: 0, lastError: 'once' }]))).toEqual([]);
    // an error kept from an earlier cycle, the wait back at the period: recovered, not backing off
    expect(stateSyncBackoffAlerts(sync([{ replica: 'a', backoffSeconds: 10, lastError: 'once' }]))).toEqual([]);
  });
});

describe('sortAlerts', () => {
  it('puts critical first, then orders by kind and message (stable between polls)', () => {
    const a = (severity: Alert['severity'], kind: Alert['kind'], message: string): Alert => ({ severity, kind, message, link: '/' });
    const sorted = sortAlerts([a('warning', 'teleport-spike', 'b'), a('warning', 'learner-lag', 'z'), a('critical', 'statesync-backoff', 'x'), a('warning', 'teleport-spike', 'a')]);
    expect(sorted.map((x) => `${x.severity}:${x.kind}:${x.message}`)).toEqual(['critical:statesync-backoff:x', 'warning:learner-lag:z', 'warning:teleport-spike:a', 'warning:teleport-spike:b']);
  });
});
