import { describe, expect, it } from 'vitest';
import type { Condition } from '@orrery/spec';
import { functionHealth, registryClusterHealth, replicasHealth, stateSyncHealth, worstHealth, type Health } from './health-from-conditions.ts';

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
