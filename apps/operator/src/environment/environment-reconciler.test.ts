import { describe, expect, it } from 'vitest';
import type { Environment } from '@orrery/spec';
import type { EnvironmentBackend, EnvironmentStatus } from './environment-backend.ts';
import { EnvironmentReconciler } from './environment-reconciler.ts';

const NOW = new Date('2026-12-03T12:00:00Z');

function environment(status?: EnvironmentStatus): Environment {
  return { metadata: { namespace: 'default', name: 'node', generation: 2 }, spec: { poolSize: 3 }, status } as unknown as Environment;
}

function fakeBackend(env: Environment | undefined, warm: number) {
  const calls: string[] = [];
  const written: EnvironmentStatus[] = [];
  const backend: EnvironmentBackend = {
    environment: async () => env,
    prepare: async (e) => void calls.push(`prepare ${e.metadata.name}`),
    readyPoolWorkers: () => warm,
    settle: (_key, status) => ({ ...status, conditions: [...(status.conditions ?? []).filter((c) => c.type !== 'Reconciled'), { type: 'Reconciled', status: 'True', reason: 'Reconciled', message: '', lastTransitionTime: NOW.toISOString() }] }),
    writeStatus: async (_e, status) => {
      calls.push('write');
      written.push(status);
    },
  };
  return { backend, calls, written };
}

describe('EnvironmentReconciler', () => {
  it('prepares the pool before writing a Ready status with the warm count and the backend conditions', async () => {
    const { backend, calls, written } = fakeBackend(environment(), 2);
    await new EnvironmentReconciler({ backend, now: () => NOW }).reconcile('default/node');
    expect(calls).toEqual(['prepare node', 'write']);
    expect(written[0]).toMatchObject({ observedGeneration: 2, readyPoolWorkers: 2 });
    expect(written[0]!.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'PoolReady', message: '2/3 warm pool workers ready' });
    expect(written[0]!.conditions?.some((c) => c.type === 'Reconciled')).toBe(true);
  });

  it('is Ready once accepted even with no warm worker', async () => {
    const { backend, written } = fakeBackend(environment(), 0);
    await new EnvironmentReconciler({ backend, now: () => NOW }).reconcile('default/node');
    expect(written[0]!.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'Accepted' });
  });

  it('does nothing for a gone Environment and writes nothing when the status is unchanged', async () => {
    const gone = fakeBackend(undefined, 1);
    await new EnvironmentReconciler({ backend: gone.backend, now: () => NOW }).reconcile('default/node');
    expect(gone.calls).toEqual([]);

    const first = fakeBackend(environment(), 1);
    await new EnvironmentReconciler({ backend: first.backend, now: () => NOW }).reconcile('default/node');
    const again = fakeBackend(environment(first.written[0]), 1);
    await new EnvironmentReconciler({ backend: again.backend, now: () => NOW }).reconcile('default/node');
    expect(again.calls).toEqual(['prepare node']);
  });
});
