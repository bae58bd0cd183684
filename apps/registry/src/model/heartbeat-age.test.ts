import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_MS, heartbeatExpired, onlyStampChanged, stampDue } from './heartbeat-age.ts';
import type { Instance } from './instance.ts';

const inst = (over: Partial<Instance> = {}): Instance => ({
  namespace: 'prod',
  service: 'company.trade.order.order-center.api',
  organization: 'company',
  businessDomain: 'trade',
  capabilityDomain: 'order',
  application: 'order-center',
  role: 'api',
  instanceId: 'a',
  zone: 'az1',
  labels: { color: 'gray' },
  metadata: {},
  endpoints: [],
  leaseTtlSeconds: 30,
  lastHeartbeatAt: 1_000_000,
  revision: 10,
  createRevision: 5,
  leaseId: 'abc',
  ...over,
});

describe('heartbeat stamps', () => {
  it('stamps again once the stamp is half a TTL old, or when there is none', () => {
    expect(stampDue(inst(), 1_000_000 + 14_999)).toBe(false);
    expect(stampDue(inst(), 1_000_000 + 15_000)).toBe(true);
    expect(stampDue(inst({ lastHeartbeatAt: undefined }), 0)).toBe(true);
  });

  it('judges a worker dead only when no renewal can have happened for a full TTL', () => {
    // Worst live case: stamped at t, renewals every TTL, the next stamp due at t + TTL/2 lands
    // on a renewal up to one TTL later.
    const limit = 1_000_000 + 45_000 + CLOCK_SKEW_MS;
    expect(heartbeatExpired(inst(), limit)).toBe(false);
    expect(heartbeatExpired(inst(), limit + 1)).toBe(true);
    expect(heartbeatExpired(inst({ lastHeartbeatAt: undefined }), Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('tells a stamp refresh from a real change', () => {
    const before = inst();
    expect(onlyStampChanged(before, inst({ lastHeartbeatAt: 2_000_000, revision: 11 }))).toBe(true);
    expect(onlyStampChanged(before, inst({ lastHeartbeatAt: 2_000_000, revision: 11, labels: { color: 'blue' } }))).toBe(false);
    expect(onlyStampChanged(before, inst({ lastHeartbeatAt: 2_000_000, revision: 11, leaseId: 'def' }))).toBe(false);
    expect(onlyStampChanged(before, inst({ revision: 11 }))).toBe(false);
  });
});
