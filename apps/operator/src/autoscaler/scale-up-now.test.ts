import { describe, expect, it } from 'vitest';
import type { OrreryFunction, Revision } from '@orrery/spec';
import { createScaleUpNow } from './scale-up-now.ts';

const rev = (executor: string) => ({ metadata: { namespace: 'ns', name: 'f-00001' }, spec: { function: 'f', template: { executor } } }) as unknown as Revision;
const fn = { metadata: { namespace: 'ns', name: 'f' } } as unknown as OrreryFunction;

function setup(o: { decided: number; running: number; executor?: string }) {
  const scaled: Array<{ desired: number; token?: string }> = [];
  const scaleUpNow = createScaleUpNow({
    autoscaler: { decisionOf: () => ({ desired: o.decided, mode: 'stable', activator: { inPath: false, excessBurstCapacity: 0, reason: '' }, reason: '' }) },
    backend: {
      observe: () => ({ desired: o.running, actual: o.running, ready: o.running, restarts: 0 }),
      scale: async (_r, desired, creds) => void scaled.push({ desired, token: creds?.token }),
    },
    revision: async () => rev(o.executor ?? 'deploy'),
    fn: async () => fn,
    credentials: () => ({ url: 'http://state', namespace: 'ns', keyspace: 'k', token: 't' }),
  });
  return { scaleUpNow, scaled };
}

describe('scale up now', () => {
  it('starts the workers the KPA wants beyond those the backend runs, with the state credentials', async () => {
    const { scaleUpNow, scaled } = setup({ decided: 2, running: 0 });
    await scaleUpNow('ns/f-00001');
    expect(scaled).toEqual([{ desired: 2, token: 't' }]);
  });

  it('never scales down, nor touches a revision already at its desired scale', async () => {
    for (const [decided, running] of [[0, 1], [1, 1], [1, 3]] as const) {
      const { scaleUpNow, scaled } = setup({ decided, running });
      await scaleUpNow('ns/f-00001');
      expect(scaled, `${decided} vs ${running}`).toEqual([]);
    }
  });

  it('leaves pool revisions to the pool executor', async () => {
    const { scaleUpNow, scaled } = setup({ decided: 1, running: 0, executor: 'pool' });
    await scaleUpNow('ns/f-00001');
    expect(scaled).toEqual([]);
  });
});
