import type { Instance, InstanceRecord } from './instance.ts';

/**
 * The seed's expiry rule is "no renewal for longer than the TTL", measured from the last
 * heartbeat, and queries skip such instances by default. etcd leases implement the rule while
 * etcd runs, but etcd does not keep a lease's remaining time across a restart (nor, in 3.4,
 * across a leader change): every lease comes back with its full TTL, and a worker SIGKILLed
 * while etcd was down would be served for one more TTL after the restart. So the record carries
 * the time of its last renewal (`lastHeartbeatAt`, ms since the epoch, the registry replica's
 * clock), and the registry judges the TTL itself:
 *
 * - every heartbeat rewrites the stamp unless it is younger than STAMP_RESOLUTION_MS (the seed's
 *   heartbeat "reads the instance linearizably, then commits an update"), so the stamp trails
 *   the last renewal by less than that;
 * - answers hide an instance once its stamp is older than TTL + STAMP_RESOLUTION_MS +
 *   EXPIRY_CLOCK_ALLOWANCE_MS: a live worker (a renewal within every TTL) is never hidden, even
 *   by a replica whose clock runs up to the allowance ahead of the stamping one, and a dead one
 *   is hidden within one second after its TTL;
 * - the sweep deletes it for good once the stamp is older than TTL + STAMP_RESOLUTION_MS +
 *   CLOCK_SKEW_MS (a larger margin: a deletion cannot be taken back).
 */
export const STAMP_RESOLUTION_MS = 500;
/** How far ahead of the stamping replica's clock an answering replica's clock may run. */
export const EXPIRY_CLOCK_ALLOWANCE_MS = 500;
/** Registry replicas stamp with their own clocks: the sweep tolerates this much disagreement. */
export const CLOCK_SKEW_MS = 2000;

type Stamped = Pick<InstanceRecord, 'leaseTtlSeconds' | 'lastHeartbeatAt'>;

/** True when a heartbeat should write a fresh stamp into the record. */
export function stampDue(inst: Stamped, nowMs: number): boolean {
  if (inst.lastHeartbeatAt === undefined) return true;
  return nowMs - inst.lastHeartbeatAt >= STAMP_RESOLUTION_MS;
}

/**
 * The last moment the instance is served: its TTL after the stamp, plus the stamp's resolution
 * and the clock allowance. Undefined for records without a stamp (written before stamps
 * existed): those are never judged here, etcd's lease alone removes them.
 */
export function expiresAt(inst: Stamped): number | undefined {
  if (inst.lastHeartbeatAt === undefined) return undefined;
  return inst.lastHeartbeatAt + inst.leaseTtlSeconds * 1000 + STAMP_RESOLUTION_MS + EXPIRY_CLOCK_ALLOWANCE_MS;
}

/** True when the TTL passed without renewal: answers skip the instance unless includeExpired=true. */
export function leaseExpired(inst: Stamped, nowMs: number): boolean {
  const at = expiresAt(inst);
  return at !== undefined && nowMs > at;
}

/**
 * True when the sweep may delete the record: no renewal for longer than the TTL even if this
 * replica's clock runs CLOCK_SKEW_MS ahead of the one that stamped. Records without a stamp are
 * never judged.
 */
export function heartbeatExpired(inst: Stamped, nowMs: number): boolean {
  if (inst.lastHeartbeatAt === undefined) return false;
  return nowMs - inst.lastHeartbeatAt > inst.leaseTtlSeconds * 1000 + STAMP_RESOLUTION_MS + CLOCK_SKEW_MS;
}

/** Two versions of one instance that differ only by the stamp: watchers are not told (a pure heartbeat emits nothing). */
export function onlyStampChanged(prev: Instance, now: Instance): boolean {
  if (prev.leaseId !== now.leaseId || prev.lastHeartbeatAt === now.lastHeartbeatAt) return false;
  const { revision: _r1, lastHeartbeatAt: _h1, ...a } = prev;
  const { revision: _r2, lastHeartbeatAt: _h2, ...b } = now;
  return JSON.stringify(a) === JSON.stringify(b);
}
