import type { Instance, InstanceRecord } from './instance.ts';

/**
 * The seed's expiry rule is "no renewal for longer than the TTL", measured from the last
 * heartbeat. etcd leases implement it while etcd runs, but etcd does not keep a lease's
 * remaining time across a restart (nor, in 3.4, across a leader change): every lease comes back
 * with its full TTL. An instance whose worker was SIGKILLed while etcd was down would live one
 * more TTL after the restart. So the record carries the time of its last heartbeat
 * (`lastHeartbeatAt`, ms since the epoch), and the sweep purges records whose stamp is too old.
 *
 * Writing the stamp on every heartbeat would turn each keep-alive into a Raft write; instead a
 * heartbeat refreshes it only once it is older than half the TTL.
 */
const STAMP_AFTER_FRACTION = 0.5;
/** Registry replicas stamp with their own clocks: tolerate this much disagreement. */
export const CLOCK_SKEW_MS = 2000;

type Stamped = Pick<InstanceRecord, 'leaseTtlSeconds' | 'lastHeartbeatAt'>;

/** True when a heartbeat should write a fresh stamp into the record. */
export function stampDue(inst: Stamped, nowMs: number): boolean {
  if (inst.lastHeartbeatAt === undefined) return true;
  return nowMs - inst.lastHeartbeatAt >= inst.leaseTtlSeconds * 1000 * STAMP_AFTER_FRACTION;
}

/**
 * True when the worker certainly stopped renewing: a live worker renews within its TTL and the
 * stamp trails a renewal by less than TTL/2, so a stamp older than 1.5 TTL (plus clock skew)
 * means no renewal for more than the TTL. Records without a stamp are never judged.
 */
export function heartbeatExpired(inst: Stamped, nowMs: number): boolean {
  if (inst.lastHeartbeatAt === undefined) return false;
  return nowMs - inst.lastHeartbeatAt > inst.leaseTtlSeconds * 1000 * (1 + STAMP_AFTER_FRACTION) + CLOCK_SKEW_MS;
}

/** Two versions of one instance that differ only by the stamp: watchers are not told (a pure heartbeat emits nothing). */
export function onlyStampChanged(prev: Instance, now: Instance): boolean {
  if (prev.leaseId !== now.leaseId || prev.lastHeartbeatAt === now.lastHeartbeatAt) return false;
  const { revision: _r1, lastHeartbeatAt: _h1, ...a } = prev;
  const { revision: _r2, lastHeartbeatAt: _h2, ...b } = now;
  return JSON.stringify(a) === JSON.stringify(b);
}
