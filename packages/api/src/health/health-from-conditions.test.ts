import { describe, expect, it } from 'vitest';
import type { Condition } from '@orrery/spec';
import { functionHealth, HEALTHS, registryClusterHealth, registryMemberHealth, replicasHealth, stateSyncHealth, worstHealth, type Health } from './health-from-conditions.ts';

const cond = (type: string, status: Condition['status'], reason = 'R', message = ''): Condition => ({ type, status, reason, message });
const fn = (conditions: Condition[] | undefined, extra: { generation?: number; observedGeneration?: number; latestReadyRevision?: string } = {}) => ({
  metadata: { name: 'f', namespace: 'default', generation: extra.generation },
  status: conditions === undefined && extra.observedGeneration === undefined ? undefined : { conditions, observedGeneration: extra.observedGeneration, latestReadyRevision: extra.latestReadyRevision },
});
const obj = (conditions: Condition[] | undefined, generation?: number, observedGeneration?: number) => ({
  metadata: { name: 'x', namespace: 'default', generation },
  status: conditions === undefined ? undefined : { conditions, observedGeneration },
});

describe('functionHealth', () => {
  it('is Unknown without a status or without a Ready condition', () => {
    expect(functionHealth(fn(undefined)).health).toBe('Unknown');
    expect(functionHealth(fn([])).health).toBe('Unknown');
    expect(functionHealth(fn([cond('RoutesReady', 'True')])).health).toBe('Unknown');
  });
  it('is Healthy when Ready=True, naming the serving revision', () => {
    expect(functionHealth(fn([cond('Ready', 'True')], { latestReadyRevision: 'f-00002' }))).toEqual({ health: 'Healthy', message: 'serving f-00002' });
    expect(functionHealth(fn([cond('Ready', 'True')])).message).toBe('');
  });
  it('is Degraded when Ready=False, with the failing sub-condition as the reason', () => {
    const v = functionHealth(fn([cond('ConfigurationsReady', 'False', 'WorkerCrashing', 'f-00002: workers keep exiting'), cond('RoutesReady', 'True'), cond('Ready', 'False', 'RevisionFailed', 'see …')]));
    expect(v).toEqual({ health: 'Degraded', message: 'WorkerCrashing: f-00002: workers keep exiting' });
  });
  it('falls back to the Ready condition itself when no sub-condition explains', () => {
    expect(functionHealth(fn([cond('Ready', 'False', 'RevisionFailed', 'x')]))).toEqual({ health: 'Degraded', message: 'RevisionFailed: x' });
  });
  it('is Progressing when Ready=Unknown, naming what it waits for', () => {
    const v = functionHealth(fn([cond('ConfigurationsReady', 'True'), cond('RoutesReady', 'Unknown', 'TrafficPending', 'waiting for f-00003 (not ready)'), cond('Ready', 'Unknown', 'Progressing')]));
    expect(v).toEqual({ health: 'Progressing', message: 'TrafficPending: waiting for f-00003 (not ready)' });
  });
  it('is Progressing while the operator has not observed the current generation, whatever Ready says', () => {
    expect(functionHealth(fn([cond('Ready', 'True')], { generation: 3, observedGeneration: 2 })).health).toBe('Progressing');
    expect(functionHealth(fn([cond('Ready', 'False')], { generation: 3, observedGeneration: 2 })).message).toMatch(/generation 3 not yet observed/);
    expect(functionHealth(fn([cond('Ready', 'True')], { generation: 3, observedGeneration: 3 })).health).toBe('Healthy');
  });
});

describe('registryClusterHealth', () => {
  const healthy = [cond('Available', 'True', 'QuorumHealthy', 'leader r-1; 3 of 3 voters healthy'), cond('Progressing', 'False', 'Steady'), cond('Degraded', 'False', 'AllHealthy')];
  it('is Unknown without conditions', () => {
    expect(registryClusterHealth(obj(undefined)).health).toBe('Unknown');
    expect(registryClusterHealth(obj([])).health).toBe('Unknown');
  });
  it('is Healthy when available and steady', () => {
    expect(registryClusterHealth(obj(healthy))).toEqual({ health: 'Healthy', message: 'leader r-1; 3 of 3 voters healthy' });
  });
  it('is Degraded without quorum, with an unhealthy member, or after a failed step', () => {
    expect(registryClusterHealth(obj([cond('Available', 'False', 'NoQuorum', '1 of 3 voters healthy, no leader')]))).toEqual({ health: 'Degraded', message: 'NoQuorum: 1 of 3 voters healthy, no leader' });
    expect(registryClusterHealth(obj([healthy[0]!, cond('Degraded', 'True', 'MemberUnhealthy', 'unhealthy: r-2')])).message).toBe('MemberUnhealthy: unhealthy: r-2');
    expect(registryClusterHealth(obj([healthy[0]!, cond('Progressing', 'True', 'StepFailed', 'promote: refused')])).health).toBe('Degraded');
  });
  it('is Progressing during a membership change or before the operator saw the spec', () => {
    expect(registryClusterHealth(obj([healthy[0]!, cond('Progressing', 'True', 'AddLearner', 'adding learner r-4: 40 % caught up')]))).toEqual({
      health: 'Progressing',
      message: 'AddLearner: adding learner r-4: 40 % caught up',
    });
    expect(registryClusterHealth(obj(healthy, 4, 3)).health).toBe('Progressing');
  });
  it('prefers Degraded over a stale generation (a lost quorum is news even mid-change)', () => {
    expect(registryClusterHealth(obj([cond('Available', 'False', 'NoQuorum')], 4, 3)).health).toBe('Degraded');
  });
  it('is Unknown when no condition decides', () => {
    expect(registryClusterHealth(obj([cond('RequestHandled', 'True')])).health).toBe('Unknown');
  });
});

describe('stateSyncHealth', () => {
  it('is Unknown without conditions or without target replicas', () => {
    expect(stateSyncHealth(obj(undefined)).health).toBe('Unknown');
    expect(stateSyncHealth(obj([cond('Progressing', 'False'), cond('Ready', 'False', 'NoReplicas', 'no target replicas found'), cond('Degraded', 'False')]))).toEqual({
      health: 'Unknown',
      message: 'NoReplicas: no target replicas found',
    });
  });
  it('is Healthy when synced', () => {
    expect(stateSyncHealth(obj([cond('Progressing', 'False'), cond('Ready', 'True', 'Synced', '2 replica(s) completed a sync cycle'), cond('Degraded', 'False')]))).toEqual({
      health: 'Healthy',
      message: '2 replica(s) completed a sync cycle',
    });
  });
  it('is Degraded on sync errors or when Ready=False for a reason other than syncing', () => {
    expect(stateSyncHealth(obj([cond('Ready', 'True'), cond('Degraded', 'True', 'SyncErrors', 'router-b: ECONNREFUSED')])).message).toBe('SyncErrors: router-b: ECONNREFUSED');
    expect(stateSyncHealth(obj([cond('Ready', 'False', 'RedisSecretMissing', 'no secret')])).health).toBe('Degraded');
  });
  it('is Progressing while rolling out, still syncing, or before the operator saw the spec', () => {
    expect(stateSyncHealth(obj([cond('Progressing', 'True', 'RollingOut', 'restarting router-a'), cond('Ready', 'True')])).health).toBe('Progressing');
    expect(stateSyncHealth(obj([cond('Ready', 'False', 'Syncing', '1 of 2 replica tables synced')])).health).toBe('Progressing');
    expect(stateSyncHealth(obj([cond('Ready', 'True')], 2, 1)).health).toBe('Progressing');
  });
});

describe('replicasHealth', () => {
  it('is Unknown with no replicas, Healthy when all answer, Degraded when any is silent', () => {
    expect(replicasHealth([]).health).toBe('Unknown');
    expect(replicasHealth([{ url: 'a', ok: true }, { url: 'b', ok: true }])).toEqual({ health: 'Healthy', message: '2 of 2 replicas answered' });
    const v = replicasHealth([{ url: 'a', ok: true }, { url: 'b', ok: false, error: 'ECONNREFUSED' }]);
    expect(v.health).toBe('Degraded');
    expect(v.message).toBe('1 of 2 replicas answered; b: ECONNREFUSED');
    expect(replicasHealth([{ url: 'b', ok: false }]).message).toBe('0 of 1 replicas answered; b: no answer');
  });
});

describe('worstHealth', () => {
  const v = (health: Health) => ({ health, message: health });
  it('is Healthy with the given note when there is nothing to judge', () => {
    expect(worstHealth([], 'no functions')).toEqual({ health: 'Healthy', message: 'no functions' });
  });
  it('ranks Degraded > Unknown > Progressing > Healthy and counts each', () => {
    expect(worstHealth([v('Healthy'), v('Progressing')])).toEqual({ health: 'Progressing', message: '1 Healthy, 1 Progressing' });
    expect(worstHealth([v('Progressing'), v('Unknown'), v('Healthy')]).health).toBe('Unknown');
    expect(worstHealth([v('Unknown'), v('Degraded'), v('Progressing')])).toEqual({ health: 'Degraded', message: '1 Progressing, 1 Degraded, 1 Unknown' });
    expect(worstHealth([v('Healthy'), v('Healthy')])).toEqual({ health: 'Healthy', message: '2 Healthy' });
  });
});

/**
 * Every case of the RegistryCluster rule in one table, including the two where the console's old
 * copy (apps/console/src/app/registry/cluster-health.ts) answered differently: a failed step was
 * Progressing there, and a spec the operator had not observed yet read Healthy.
 */
describe('registryClusterHealth, the whole table', () => {
  const available = cond('Available', 'True', 'QuorumHealthy', 'leader r-1; 3 of 3 voters healthy');
  const noQuorum = cond('Available', 'False', 'NoQuorum', '1 of 3 voters healthy, no leader');
  const degraded = cond('Degraded', 'True', 'MemberUnhealthy', 'unhealthy: r-2');
  const notDegraded = cond('Degraded', 'False', 'AllHealthy');
  const steady = cond('Progressing', 'False', 'Steady');
  const adding = cond('Progressing', 'True', 'AddingLearner', 'adding learner r-4');
  const stepFailed = cond('Progressing', 'True', 'StepFailed', 'promote r-4: etcdserver: too many learners');
  // [case, conditions, generation, observedGeneration, health, message]
  const table: Array<[string, Condition[] | undefined, number | undefined, number | undefined, Health, string]> = [
    ['no status', undefined, 1, undefined, 'Unknown', 'no conditions yet (the operator has not reconciled it)'],
    ['no conditions', [], 1, 1, 'Unknown', 'no conditions yet (the operator has not reconciled it)'],
    ['available and steady', [available, steady, notDegraded], 2, 2, 'Healthy', 'leader r-1; 3 of 3 voters healthy'],
    ['available, no generation recorded', [available, steady, notDegraded], undefined, undefined, 'Healthy', 'leader r-1; 3 of 3 voters healthy'],
    ['observed a newer generation than asked (never stale)', [available, steady], 2, 3, 'Healthy', 'leader r-1; 3 of 3 voters healthy'],
    ['no quorum', [noQuorum, steady], 1, 1, 'Degraded', 'NoQuorum: 1 of 3 voters healthy, no leader'],
    ['no quorum wins over a Degraded member', [noQuorum, degraded], 1, 1, 'Degraded', 'NoQuorum: 1 of 3 voters healthy, no leader'],
    ['a member unhealthy', [available, steady, degraded], 1, 1, 'Degraded', 'MemberUnhealthy: unhealthy: r-2'],
    // was Progressing in the console: kstatus and Argo CD read a failed step as Degraded
    ['a failed membership step', [available, stepFailed, notDegraded], 1, 1, 'Degraded', 'StepFailed: promote r-4: etcdserver: too many learners'],
    ['a failed step on a stale spec is still news', [available, stepFailed], 3, 2, 'Degraded', 'StepFailed: promote r-4: etcdserver: too many learners'],
    ['no quorum on a stale spec is still news', [noQuorum], 3, 2, 'Degraded', 'NoQuorum: 1 of 3 voters healthy, no leader'],
    // was Healthy in the console: conditions about an older spec say nothing about this one
    ['a spec not observed yet', [available, steady, notDegraded], 3, 2, 'Progressing', 'generation 3 not yet observed by the operator (observed 2)'],
    ['a spec not observed yet, mid-change', [available, adding], 3, 2, 'Progressing', 'generation 3 not yet observed by the operator (observed 2)'],
    ['a membership change', [available, adding, notDegraded], 1, 1, 'Progressing', 'AddingLearner: adding learner r-4'],
    ['a membership change before Available is known', [adding], 1, 1, 'Progressing', 'AddingLearner: adding learner r-4'],
    ['Available Unknown, steady', [cond('Available', 'Unknown', 'Probing', 'first poll'), steady], 1, 1, 'Unknown', 'Probing: first poll'],
    ['no condition that decides', [cond('RequestHandled', 'True')], 1, 1, 'Unknown', 'no Available condition yet'],
  ];
  it.each(table)('%s', (_, conditions, generation, observedGeneration, health, message) => {
    expect(registryClusterHealth(obj(conditions, generation, observedGeneration))).toEqual({ health, message });
  });
});

describe('registryMemberHealth', () => {
  it.each([
    ['healthy', 'Healthy'],
    ['unhealthy', 'Degraded'],
    ['unknown', 'Unknown'],
  ] as const)('a member the operator saw as %s shows %s', (word, health) => {
    expect(registryMemberHealth({ health: word }).health).toBe(health);
  });
});

/**
 * Every pair of verdicts: the worse one wins by Degraded > Unknown > Progressing > Healthy. The
 * console's old copy (apps/console/src/app/statesync/replica-health.ts) ranked Progressing above
 * Unknown; an Unknown needs a look while a Progressing one recovers by itself (Argo CD's
 * gitops-engine also ranks Unknown worse than Progressing).
 */
describe('worstHealth, every pair', () => {
  const RANK: Health[] = ['Healthy', 'Progressing', 'Unknown', 'Degraded'];
  const pairs = HEALTHS.flatMap((a) => HEALTHS.map((b) => [a, b] as [Health, Health]));
  it.each(pairs)('%s with %s', (a, b) => {
    const expected = RANK[Math.max(RANK.indexOf(a), RANK.indexOf(b))];
    expect(worstHealth([{ health: a, message: '' }, { health: b, message: '' }]).health).toBe(expected);
  });
  it('keeps the first of equally bad verdicts and counts every health', () => {
    expect(worstHealth([{ health: 'Degraded', message: 'a' }, { health: 'Healthy', message: 'b' }, { health: 'Degraded', message: 'c' }])).toEqual({ health: 'Degraded', message: '1 Healthy, 2 Degraded' });
  });
});
