import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_MS, EXPIRY_CLOCK_ALLOWANCE_MS, expiresAt, heartbeatExpired, leaseExpired, onlyStampChanged, STAMP_RESOLUTION_MS, stampDue } from './heartbeat-age.ts';
import { ORDER_CENTER_API } from '../testing/seed-instance.ts';
import type { Instance } from './instance.ts';

const inst = (over: Partial<Instance> = {}): Instance => ({
  ...ORDER_CENTER_API,
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
  it('every heartbeat stamps again unless the stamp is younger than the resolution, or there is none', () => {
    expect(stampDue(inst(), 1_000_000)).toBe(false);
    expect(stampDue(inst(), 1_000_000 + STAMP_RESOLUTION_MS - 1)).toBe(false);
    expect(stampDue(inst(), 1_000_000 + STAMP_RESOLUTION_MS)).toBe(true);
    // Whatever the TTL: a long TTL no longer lets the stamp trail renewals by half of it.
    expect(stampDue(inst({ leaseTtlSeconds: 3600 }), 1_000_000 + 10_000)).toBe(true);
    expect(stampDue(inst({ lastHeartbeatAt: undefined }), 0)).toBe(true);
  });
});

describe('the TTL rule of answers (leaseExpired)', () => {
  it('hides an instance once its TTL passed without renewal, with one second of allowance', () => {
    const last = 1_000_000 + 30_000 + STAMP_RESOLUTION_MS + EXPIRY_CLOCK_ALLOWANCE_MS;
    expect(STAMP_RESOLUTION_MS + EXPIRY_CLOCK_ALLOWANCE_MS).toBe(1000);
    expect(expiresAt(inst())).toBe(last);
    expect(leaseExpired(inst(), 1_000_000 + 29_999)).toBe(false);
    expect(leaseExpired(inst(), last)).toBe(false);
    expect(leaseExpired(inst(), last + 1)).toBe(true);
    expect(leaseExpired(inst({ leaseTtlSeconds: 1 }), 1_000_000 + 2001)).toBe(true);
  });

  it('never judges a record without a stamp', () => {
    expect(expiresAt(inst({ lastHeartbeatAt: undefined }))).toBeUndefined();
    expect(leaseExpired(inst({ lastHeartbeatAt: undefined }), Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('a worker renewing within every TTL is never hidden, even by a replica whose clock runs ahead by the allowance (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 600 }),
        fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: EXPIRY_CLOCK_ALLOWANCE_MS }),
        fc.integer({ min: 0, max: 1000 }),
        (ttl, gapsPermille, skew, probePermille) => {
          // Renewals at gaps of at most one TTL; each renewal stamps when the stamp is due.
          let rec = inst({ leaseTtlSeconds: ttl, lastHeartbeatAt: 0 });
          let t = 0;
          for (const g of gapsPermille) {
            const next = t + Math.max(1, Math.floor((ttl * 1000 * g) / 1000));
            // Any moment up to the next renewal, seen by a replica whose clock is `skew` ahead.
            const probe = t + Math.floor(((next - t) * probePermille) / 1000);
            if (leaseExpired(rec, probe + skew)) return false;
            t = next;
            if (stampDue(rec, t)) rec = { ...rec, lastHeartbeatAt: t };
          }
          return true;
        },
      ),
    );
  });

  it('a worker that stopped renewing is hidden within one second after its TTL (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 0, max: STAMP_RESOLUTION_MS - 1 }), (ttl, sinceStamp) => {
        // Last renewal `sinceStamp` ms after the stamp it left in place.
        const rec = inst({ leaseTtlSeconds: ttl, lastHeartbeatAt: 0 });
        const lastRenewal = sinceStamp;
        const expiry = lastRenewal + ttl * 1000;
        return !leaseExpired(rec, expiry - 1) && leaseExpired(rec, expiry + 1001);
      }),
    );
  });
});

describe('the sweep rule (heartbeatExpired)', () => {
  it('deletes only when no renewal can have happened for a full TTL even with clocks 2 s apart', () => {
    const limit = 1_000_000 + 30_000 + STAMP_RESOLUTION_MS + CLOCK_SKEW_MS;
    expect(heartbeatExpired(inst(), limit)).toBe(false);
    expect(heartbeatExpired(inst(), limit + 1)).toBe(true);
    expect(heartbeatExpired(inst({ lastHeartbeatAt: undefined }), Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('is never earlier than the answers\' rule (a record is hidden before it is deleted)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3600 }), fc.integer({ min: 0, max: 4_000_000 }), (ttl, now) => {
        const rec = inst({ leaseTtlSeconds: ttl, lastHeartbeatAt: 0 });
        return !heartbeatExpired(rec, now) || leaseExpired(rec, now);
      }),
    );
  });
});

describe('stamp-only changes', () => {
  it('tells a stamp refresh from a real change', () => {
    const before = inst();
    expect(onlyStampChanged(before, inst({ lastHeartbeatAt: 2_000_000, revision: 11 }))).toBe(true);
    expect(onlyStampChanged(before, inst({ lastHeartbeatAt: 2_000_000, revision: 11, labels: { color: 'blue' } }))).toBe(false);
    expect(onlyStampChanged(before, inst({ lastHeartbeatAt: 2_000_000, revision: 11, leaseId: 'def' }))).toBe(false);
    expect(onlyStampChanged(before, inst({ revision: 11 }))).toBe(false);
  });
});
