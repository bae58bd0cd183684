import { MergeTable, type DeltaSyncable, type StalePolicy, type TombstoneSupport } from '@orrery/statesync';

interface OwnerRecord {
  address: string;
  atMs: number;
}

/** Seed (RFC-0023 phase 3): 256 buckets per sticky function. */
export const STICKY_BUCKETS = 256;
export const DEFAULT_STICKY_STALE_AFTER_MS = 5 * 60_000;

export function stickyEntityId(functionKey: string, bucket: number): string {
  if (!functionKey) throw new Error('sticky owner: functionKey must be non-empty');
  if (!Number.isInteger(bucket) || bucket < 0 || bucket >= STICKY_BUCKETS) {
    throw new RangeError(`sticky owner: bucket must be an integer in 0..${STICKY_BUCKETS - 1}, got ${bucket}`);
  }
  return `${functionKey}#${bucket}`;
}

/**
 * Which endpoint last served each (function, key-hash bucket), shared by every router replica so a
 * replica notices when a bucket moved (a teleport) even if another replica admitted it before.
 * Entity id = `${functionKey}#${bucket}`. Merge keeps the newer record (ties: smaller address, so all
 * replicas agree); records older than `staleAfterMs` are stale (a move after a long idle is no teleport).
 */
export class StickyOwnerTable extends MergeTable<OwnerRecord> implements DeltaSyncable, StalePolicy, TombstoneSupport {
  constructor(opts: { now?: () => number; namespace?: string; staleAfterMs?: number } = {}) {
    const staleAfterMs = opts.staleAfterMs ?? DEFAULT_STICKY_STALE_AFTER_MS;
    super({
      namespace: opts.namespace ?? 'router-sticky-owners',
      now: opts.now,
      toJson: (r) => ({ address: r.address, at: r.atMs }),
      fromJson: (j) => {
        if (typeof j.address !== 'string' || j.address === '') throw new Error('sticky owner record: address must be a non-empty string');
        if (typeof j.at !== 'number' || !Number.isFinite(j.at)) throw new Error('sticky owner record: at must be a number');
        return { address: j.address, atMs: j.at };
      },
      prefer: (incoming, existing) =>
        incoming.atMs > existing.atMs || (incoming.atMs === existing.atMs && incoming.address < existing.address),
      stampMs: (r) => r.atMs,
      expired: (r, nowMs) => nowMs - r.atMs > staleAfterMs,
    });
  }

  /**
   * Records that (functionKey, bucket) was admitted to `address` at `atMs`; returns the previous owner
   * when it differed (a teleport). Only local admissions count: owners learned from peers merge silently.
   * An admission older than the current record changes nothing and reports no teleport.
   */
  record(functionKey: string, bucket: number, address: string, atMs: number): { teleportedFrom?: string } {
    if (!address) throw new Error('sticky owner: address must be non-empty');
    const id = stickyEntityId(functionKey, bucket);
    const previous = this.getRecord(id);
    if (!this.setLocal(id, { address, atMs })) return {};
    return previous !== undefined && previous.address !== address ? { teleportedFrom: previous.address } : {};
  }

  owner(functionKey: string, bucket: number): { address: string; atMs: number } | undefined {
    const r = this.getRecord(stickyEntityId(functionKey, bucket));
    return r === undefined ? undefined : { address: r.address, atMs: r.atMs };
  }

  /** Drop every bucket of a function (e.g. it was deleted); peers learn it through tombstones. */
  forgetFunction(functionKey: string): void {
    const prefix = `${functionKey}#`;
    for (const id of [...this.knownIds()]) if (id.startsWith(prefix) && !id.slice(prefix.length).includes('#')) this.deleteLocally(id);
  }
}
