import { describe, expect, it } from 'vitest';
import { ObservedReplicaSet } from './observed-replica-set.ts';

describe('ObservedReplicaSet', () => {
  it('names the routers it observes and records (but cannot apply) settings', async () => {
    const set = new ObservedReplicaSet(['http://127.0.0.1:9001/', 'http://127.0.0.1:9002']);
    expect(set.replicas()).toEqual([
      { name: 'router-1', adminUrl: 'http://127.0.0.1:9001' },
      { name: 'router-2', adminUrl: 'http://127.0.0.1:9002' },
    ]);
    expect(set.fingerprint()).toBeUndefined();
    await set.configure({ args: [], env: { ORRERY_REDIS_URL: 'redis://x' } }, 'abc');
    expect(set.fingerprint()).toBe('abc');
    expect(set.external).toBe(true);
  });
});
