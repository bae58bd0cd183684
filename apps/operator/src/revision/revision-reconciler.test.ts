import { describe, expect, it } from 'vitest';
import type { OrreryFunction, Revision, RevisionStatus, StateCredentials } from '@orrery/spec';
import type { KpaDecision } from '../autoscaler/kpa-decider.ts';
import type { EventRecorder, OperatorEvent } from '../events/event-recorder.ts';
import type { RevisionWorkers } from '../reconcile/revision-workers.ts';
import type { ReadyOverride, RevisionBackend } from './revision-backend.ts';
import { RevisionReconciler, type RevisionScaler } from './revision-reconciler.ts';

const NOW = new Date('2026-12-03T12:00:00Z');
const TOKEN: StateCredentials = { keyspace: 'carts', token: 't' } as unknown as StateCredentials;

function revision(name: string, executor: 'deploy' | 'pool' | 'container' = 'deploy', minScale?: number, status?: RevisionStatus): Revision {
  return {
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Revision',
    metadata: { namespace: 'default', name, generation: 1 },
    spec: { function: 'fn', template: { executor, environment: 'node', autoscaling: { minScale } } },
    status,
  } as unknown as Revision;
}

/** Function `fn` whose status routes 100 % to `routed` (none: nothing routed). */
function fn(routed?: string): OrreryFunction {
  return {
    metadata: { namespace: 'default', name: 'fn' },
    spec: { template: {} },
    status: { traffic: routed ? [{ revisionName: routed, percent: 100 }] : [] },
  } as unknown as OrreryFunction;
}

/** A backend that records what the reconciler asked of it. */
function fakeBackend(o: { revisions: Revision[]; fn?: OrreryFunction; pool?: boolean; unsupported?: ReadyOverride; ready?: number }) {
  const calls: string[] = [];
  const written: RevisionStatus[] = [];
  const workers = (desired: number): RevisionWorkers => ({ desired, actual: desired, ready: Math.min(desired, o.ready ?? desired), restarts: 0 });
  const backend: RevisionBackend = {
    revision: async (_ns, name) => o.revisions.find((r) => r.metadata.name === name),
    owner: async () => o.fn,
    revisionsOf: async () => o.revisions,
    release: async (ns, name) => void calls.push(`release ${ns}/${name}`),
    unsupported: () => o.unsupported,
    credentials: () => TOKEN,
    prepare: async (_f, rev, creds) => void calls.push(`prepare ${rev.metadata.name} ${creds === TOKEN ? 'token' : 'none'}`),
    runWorkers: async (rev, desired, creds) => {
      calls.push(`run ${rev.metadata.name} ${desired} ${creds === TOKEN ? 'token' : 'none'}`);
      return workers(desired);
    },
    pool: o.pool
      ? {
          keep: (rev, desired) => void calls.push(`keep ${rev.metadata.name} ${desired}`),
          release: async (key) => void calls.push(`pool-release ${key}`),
          observe: async (_rev, wanted, desired) => ({ workers: workers(desired), ready: wanted ? { status: 'True', reason: 'PoolExecutor', message: 'pool' } : undefined }),
        }
      : undefined,
    settle: (_key, status) => ({ ...status, conditions: [...(status.conditions ?? []).filter((c) => c.type !== 'Reconciled'), { type: 'Reconciled', status: 'True', reason: 'Reconciled', message: '', lastTransitionTime: NOW.toISOString() }] }),
    writeStatus: async (rev, status) => {
      written.push(status);
      return rev.status;
    },
  };
  return { backend, calls, written };
}

function fakeScaler(desired: number): RevisionScaler & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    desired: (key, _rev, reachable) => {
      log.push(`desired ${key} ${reachable}`);
      return { desired, mode: 'stable', reason: `kpa wants ${desired}` } as KpaDecision;
    },
    forget: (key) => void log.push(`forget ${key}`),
  };
}

function recorder() {
  const events: OperatorEvent[] = [];
  return { events, recorder: { record: (_t: unknown, ...e: OperatorEvent[]) => void events.push(...e) } as unknown as EventRecorder };
}

const ready = (s: RevisionStatus) => s.conditions?.find((c) => c.type === 'Ready');

describe('RevisionReconciler', () => {
  it('a gone revision, or one whose Function is gone, is released and forgotten by the KPA; nothing runs, no status', async () => {
    for (const setup of [{ revisions: [], fn: fn('fn-00001') }, { revisions: [revision('fn-00001')], fn: undefined }]) {
      const { backend, calls, written } = fakeBackend(setup);
      const kpa = fakeScaler(3);
      await new RevisionReconciler({ backend, autoscaler: kpa, now: () => NOW }).reconcile('default/fn-00001');
      expect(calls).toEqual(['release default/fn-00001']);
      expect(kpa.log).toEqual(['forget default/fn-00001']);
      expect(written).toEqual([]);
    }
  });

  it('a routed deploy revision runs what the KPA decides, with the state token, after its objects are prepared', async () => {
    const { backend, calls, written } = fakeBackend({ revisions: [revision('fn-00001'), revision('fn-00002')], fn: fn('fn-00001') });
    const kpa = fakeScaler(3);
    const { events, recorder: rec } = recorder();
    await new RevisionReconciler({ backend, autoscaler: kpa, events: rec, now: () => NOW }).reconcile('default/fn-00001');
    expect(calls).toEqual(['prepare fn-00001 token', 'run fn-00001 3 token']);
    expect(kpa.log).toEqual(['desired default/fn-00001 true']);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ desiredScale: 3, readyWorkers: 3, autoscalerMode: 'stable', lastDecision: 'kpa wants 3' });
    expect(ready(written[0]!)).toMatchObject({ status: 'True', reason: 'WorkersReady' });
    // The backend's own condition (settle) is kept.
    expect(written[0]!.conditions?.some((c) => c.type === 'Reconciled')).toBe(true);
    expect(events.map((e) => e.reason)).toEqual(['Scaled', 'RevisionReady']);
    expect(events[0]!.message).toBe('scaled from 0 to 3: kpa wants 3');
  });

  it('the newest revision runs before traffic reaches it (not routable to the KPA); an older unrouted one runs nothing', async () => {
    const revs = [revision('fn-00001'), revision('fn-00002'), revision('fn-00003')];
    const newest = fakeBackend({ revisions: revs, fn: fn('fn-00001') });
    const kpa = fakeScaler(1);
    await new RevisionReconciler({ backend: newest.backend, autoscaler: kpa, now: () => NOW }).reconcile('default/fn-00003');
    expect(kpa.log).toEqual(['desired default/fn-00003 false']);
    expect(newest.calls.at(-1)).toBe('run fn-00003 1 token');

    const old = fakeBackend({ revisions: revs, fn: fn('fn-00001') });
    const kpa2 = fakeScaler(5);
    await new RevisionReconciler({ backend: old.backend, autoscaler: kpa2, now: () => NOW }).reconcile('default/fn-00002');
    expect(kpa2.log).toEqual(['forget default/fn-00002']);
    expect(old.calls.at(-1)).toBe('run fn-00002 0 token');
    expect(ready(old.written[0]!)).toMatchObject({ status: 'Unknown', reason: 'Inactive' });
    expect(old.written[0]!.autoscalerMode).toBeUndefined();
  });

  it('without a KPA a running revision has max(1, minScale) workers', async () => {
    for (const [minScale, want] of [[undefined, 1], [0, 1], [4, 4]] as const) {
      const { backend, calls } = fakeBackend({ revisions: [revision('fn-00001', 'deploy', minScale)], fn: fn('fn-00001') });
      await new RevisionReconciler({ backend, now: () => NOW }).reconcile('default/fn-00001');
      expect(calls.at(-1)).toBe(`run fn-00001 ${want} token`);
    }
  });

  it('a pool revision is kept warm at the KPA scale and takes the pool Ready condition; unrouted, the pool releases it', async () => {
    const revs = [revision('fn-00001', 'pool'), revision('fn-00002', 'pool')];
    const wanted = fakeBackend({ revisions: revs, fn: fn('fn-00002'), pool: true, ready: 0 });
    await new RevisionReconciler({ backend: wanted.backend, autoscaler: fakeScaler(2), now: () => NOW }).reconcile('default/fn-00002');
    expect(wanted.calls).toEqual(['prepare fn-00002 token', 'keep fn-00002 2']);
    expect(ready(wanted.written[0]!)).toMatchObject({ status: 'True', reason: 'PoolExecutor' });
    expect(wanted.written[0]).toMatchObject({ desiredScale: 2, autoscalerMode: 'stable' });

    const unrouted = fakeBackend({ revisions: revs, fn: fn('fn-00002'), pool: true });
    const kpa = fakeScaler(2);
    await new RevisionReconciler({ backend: unrouted.backend, autoscaler: kpa, now: () => NOW }).reconcile('default/fn-00001');
    expect(unrouted.calls).toEqual(['prepare fn-00001 token', 'pool-release default/fn-00001']);
    expect(kpa.log).toEqual(['forget default/fn-00001']);
  });

  it('a pool revision on a backend without a pool runs revision workers like a deploy one', async () => {
    const { backend, calls } = fakeBackend({ revisions: [revision('fn-00001', 'pool')], fn: fn('fn-00001') });
    await new RevisionReconciler({ backend, autoscaler: fakeScaler(2), now: () => NOW }).reconcile('default/fn-00001');
    expect(calls.at(-1)).toBe('run fn-00001 2 token');
  });

  it('an executor the backend cannot run fails the revision, runs nothing and prepares nothing', async () => {
    const unsupported: ReadyOverride = { status: 'False', reason: 'ExecutorUnsupported', message: 'needs Kubernetes' };
    const { backend, calls, written } = fakeBackend({ revisions: [revision('fn-00001', 'container')], fn: fn('fn-00001'), unsupported });
    const kpa = fakeScaler(3);
    const { events, recorder: rec } = recorder();
    await new RevisionReconciler({ backend, autoscaler: kpa, events: rec, now: () => NOW }).reconcile('default/fn-00001');
    expect(calls).toEqual(['run fn-00001 0 token']);
    expect(kpa.log).toEqual(['forget default/fn-00001']);
    expect(ready(written[0]!)).toMatchObject({ status: 'False', reason: 'ExecutorUnsupported' });
    expect(events.map((e) => e.reason)).toEqual(['RevisionFailed']);
  });

  it('writes nothing and records no Event when the status is unchanged', async () => {
    const first = fakeBackend({ revisions: [revision('fn-00001')], fn: fn('fn-00001') });
    await new RevisionReconciler({ backend: first.backend, autoscaler: fakeScaler(2), now: () => NOW }).reconcile('default/fn-00001');
    const settled = revision('fn-00001', 'deploy', undefined, first.written[0]);
    const again = fakeBackend({ revisions: [settled], fn: fn('fn-00001') });
    const { events, recorder: rec } = recorder();
    await new RevisionReconciler({ backend: again.backend, autoscaler: fakeScaler(2), events: rec, now: () => NOW }).reconcile('default/fn-00001');
    expect(again.written).toEqual([]);
    expect(events).toEqual([]);
  });
});
