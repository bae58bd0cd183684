import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { computePodStatus, type ContainerRecord, podPhase, type PodRuntimeView, type TerminatedState } from './pod-status.ts';

const NOW = '2026-01-01T00:01:00Z';
const T0 = '2026-01-01T00:00:00Z';
const term = (exitCode: number): TerminatedState => ({ exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: T0, finishedAt: T0, containerID: 'process://1' });
const c = (name: string, state: ContainerRecord['state'], o: Partial<ContainerRecord> = {}): ContainerRecord => ({ name, image: 'img', imageID: 'process-kubelet:///bin/x', state, restartCount: 0, ready: false, started: false, ...o });
const running = (name: string, ready = true) => c(name, { running: { startedAt: T0 } }, { ready, started: true });
const waiting = (name: string, reason = 'ContainerCreating', lastTerminated?: TerminatedState) => c(name, { waiting: { reason } }, { lastTerminated });
const done = (name: string, code: number) => c(name, { terminated: term(code) });
const view = (containers: ContainerRecord[], initContainers: ContainerRecord[] = [], o: Partial<PodRuntimeView> = {}): PodRuntimeView => ({ hostIP: '10.245.0.1', podIP: '10.244.1.2', startTime: T0, sandboxReady: true, initContainers, containers, terminal: false, ...o });

describe('podPhase (the kubelet getPhase)', () => {
  it.each([
    ['Pending while a container waits', 'Always', view([running('a'), waiting('b')]), 'Pending'],
    ['Pending while init containers run', 'Always', view([waiting('a', 'PodInitializing')], [running('i')]), 'Pending'],
    ['Running once all started', 'Always', view([running('a'), running('b')]), 'Running'],
    ['Running while a crashed container waits to restart', 'Always', view([running('a'), waiting('b', 'CrashLoopBackOff', term(1))]), 'Running'],
    ['Running when all exited under Always', 'Always', view([done('a', 0)]), 'Running'],
    ['Succeeded when all exited 0 under OnFailure', 'OnFailure', view([done('a', 0), done('b', 0)]), 'Succeeded'],
    ['Running when one failed under OnFailure', 'OnFailure', view([done('a', 0), done('b', 2)]), 'Running'],
    ['Failed when one failed under Never', 'Never', view([done('a', 0), done('b', 2)]), 'Failed'],
    ['Failed when an init container failed under Never', 'Never', view([waiting('a', 'PodInitializing')], [done('i', 1)]), 'Failed'],
    ['Pending when an init container restarts under Always', 'Always', view([waiting('a', 'PodInitializing')], [waiting('i', 'CrashLoopBackOff', term(1))]), 'Pending'],
    ['Succeeded for a deleted pod whose containers exited 0', 'Always', view([done('a', 0)], [], { terminal: true }), 'Succeeded'],
    ['Failed for a deleted pod with a SIGTERMed container', 'Always', view([done('a', 143), done('b', 0)], [], { terminal: true }), 'Failed'],
  ] as Array<[string, string, PodRuntimeView, string]>)('%s', (_n, policy, rt, want) => {
    expect(podPhase(policy, rt)).toBe(want);
  });
});

const pod = (status: V1Pod['status'] = {}, spec: Partial<V1Pod['spec']> = {}): V1Pod => ({
  metadata: { name: 'p', namespace: 'ns', uid: 'u', generation: 3 },
  spec: { containers: [{ name: 'a' }, { name: 'b' }], ...spec },
  status,
});

describe('computePodStatus', () => {
  it('reports the kubelet conditions, addresses and container statuses', () => {
    const s = computePodStatus(pod(), view([running('a'), running('b', false)]), NOW);
    expect(s.phase).toBe('Running');
    expect(s.conditions.map((x) => [x.type, x.status, x.reason, x.message])).toEqual([
      ['PodReadyToStartContainers', 'True', undefined, undefined],
      ['Initialized', 'True', undefined, undefined],
      ['Ready', 'False', 'ContainersNotReady', 'containers with unready status: [b]'],
      ['ContainersReady', 'False', 'ContainersNotReady', 'containers with unready status: [b]'],
      ['PodScheduled', 'True', undefined, undefined],
    ]);
    expect(s.conditions.every((x) => x.lastTransitionTime === NOW && x.observedGeneration === 3)).toBe(true);
    expect(s).toMatchObject({ hostIP: '10.245.0.1', hostIPs: [{ ip: '10.245.0.1' }], podIP: '10.244.1.2', podIPs: [{ ip: '10.244.1.2' }], startTime: T0, observedGeneration: 3 });
    expect(s.containerStatuses[0]).toEqual({ name: 'a', state: { running: { startedAt: T0 } }, lastState: {}, ready: true, restartCount: 0, image: 'img', imageID: 'process-kubelet:///bin/x', started: true });
  });

  it('keeps transition times of unchanged conditions, other components\u2019 conditions and fields it does not own', () => {
    const before = pod({
      qosClass: 'BestEffort',
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z' as unknown as Date },
        { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' },
      ],
    });
    const s = computePodStatus(before, view([running('a'), running('b')]), NOW);
    expect(s.conditions.find((x) => x.type === 'Ready')!.lastTransitionTime).toBe('2025-01-01T00:00:00Z');
    expect(s.conditions.find((x) => x.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'EvictionByEvictionAPI' });
    expect(s.qosClass).toBe('BestEffort');
  });

  it('reports init containers as not initialized until all have succeeded', () => {
    const p = pod({}, { initContainers: [{ name: 'i1' }, { name: 'i2' }] });
    const s = computePodStatus(p, view([waiting('a', 'PodInitializing'), waiting('b', 'PodInitializing')], [c('i1', { terminated: term(0) }, { ready: true }), running('i2', false)]), NOW);
    expect(s.conditions.find((x) => x.type === 'Initialized')).toMatchObject({ status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [i2]' });
    expect(s.initContainerStatuses!.map((x) => x.ready)).toEqual([true, false]);
    expect(s.phase).toBe('Pending');
  });

  it('honours readiness gates', () => {
    const p = pod({ conditions: [{ type: 'example.com/gate', status: 'False' }] }, { readinessGates: [{ conditionType: 'example.com/gate' }, { conditionType: 'example.com/missing' }] });
    const ready = computePodStatus(p, view([running('a'), running('b')]), NOW).conditions.find((x) => x.type === 'Ready')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'ReadinessGatesNotReady' });
    expect(ready.message).toBe('the status of pod readiness gate "example.com/gate" is not "True", but False, corresponding condition of pod readiness gate "example.com/missing" does not exist.');
  });

  it('reports a finished pod as PodCompleted and keeps its address after the sandbox is gone', () => {
    const p = pod({ podIP: '10.244.1.2', podIPs: [{ ip: '10.244.1.2' }] }, { restartPolicy: 'Never' });
    const s = computePodStatus(p, view([done('a', 0), done('b', 0)], [], { podIP: undefined, sandboxReady: false, terminal: true }), NOW);
    expect(s.phase).toBe('Succeeded');
    expect(s.conditions.find((x) => x.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    expect(s.conditions.find((x) => x.type === 'PodReadyToStartContainers')!.status).toBe('False');
    expect(s.podIP).toBe('10.244.1.2');
  });

  it('never leaves a terminal phase', () => {
    expect(computePodStatus(pod({ phase: 'Failed' }), view([running('a'), running('b')]), NOW).phase).toBe('Failed');
  });

  it('reports restarts with the last termination', () => {
    const s = computePodStatus(pod(), view([running('a'), waiting('b', 'CrashLoopBackOff', term(3))]), NOW);
    expect(s.containerStatuses[1]!.lastState).toEqual({ terminated: term(3) });
  });
});
