import { MergeTable, type DeltaSyncable, type StalePolicy, type TombstoneSupport } from '@orrery/statesync';
import { functionKeyOf, stickyEntityId } from './key-hash-id.ts';
import { decideAdmission } from './teleport-decision.ts';

interface OwnerRecord {
  address: string;
  atMs: number;
}

/** `--sticky-owner-entries`: keys remembered per router replica (up to about 0.5 KB each with the statesync bookkeeping, measured: 100 000 keys ≈ 35–55 MB of heap). */
export const DEFAULT_STICKY_OWNER_ENTRIES = 100_000;
export const DEFAULT_STICKY_STALE_AFTER_MS = 5 * 60_000;
/** A key admitted to the same endpoint rewrites its record at most this often (keeps it from going stale). */
export const DEFAULT_STICKY_TOUCH_AFTER_MS = 60_000;

export interface StickyOwnerTableOptions {
  now?: () => number;
  namespace?: string;
  /** A record not rewritten for this long is stale: a move after such an idle is no teleport. */
  staleAfterMs?: number;
  /** The LRU bound (`--sticky-owner-entries`). */
  maxEntries?: number;
  /** Capped at half of `staleAfterMs`, so a key in use never goes stale. */
  touchAfterMs?: number;
}

/**
 * Which endpoint each sticky key was last admitted to, shared by every router replica so a replica
 * notices when a key moved (a teleport) even if another replica admitted it before — and a move that
 * a peer already made (and counted) is learned silently, not counted again. One record per key
 * (entity id `<function>#<FNV-1a-64 of the key>`), bounded by an LRU of `maxEntries`: the seed's 256
 * buckets per function were shared by many keys, so keys of one bucket owned by different endpoints
 * counted as teleports (65 % of requests with 2 000 keys on 4 stable workers).
 * Merge keeps the newer record (ties: smaller address, so all replicas agree).
 */
export class StickyOwnerTable extends MergeTable<OwnerRecord> implements DeltaSyncable, StalePolicy, TombstoneSupport {
  private readonly touchAfterMs: number;

  constructor(opts: StickyOwnerTableOptions = {}) {
    const staleAfterMs = opts.staleAfterMs ?? DEFAULT_STICKY_STALE_AFTER_MS;
    const maxEntries = opts.maxEntries ?? DEFAULT_STICKY_OWNER_ENTRIES;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError(`sticky owners: maxEntries must be a positive integer, got ${maxEntries}`);
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
      maxRecords: maxEntries,
    });
    this.touchAfterMs = Math.min(opts.touchAfterMs ?? DEFAULT_STICKY_TOUCH_AFTER_MS, staleAfterMs / 2);
  }

  /**
   * Records that the key whose FNV-1a-64 is (hi, lo) was admitted to `address` at `atMs` (a local
   * admission). Returns the endpoint it was last admitted to when that differs — a teleport — else
   * undefined. Owners learned from peers merge silently and are never counted here.
   */
  record(functionKey: string, keyHashHi: number, keyHashLo: number, address: string, atMs: number): string | undefined {
    if (!address) throw new Error('sticky owner: address must be non-empty');
    const id = stickyEntityId(functionKey, keyHashHi, keyHashLo);
    const outcome = decideAdmission(this.getRecord(id, atMs), address, atMs, this.touchAfterMs);
    switch (outcome.kind) {
      case 'same':
        if (outcome.rewrite) this.setLocal(id, { address, atMs });
        else this.touch(id);
        return undefined;
      case 'older':
        this.touch(id);
        return undefined;
      case 'first':
        this.setLocal(id, { address, atMs });
        return undefined;
      case 'moved':
        this.setLocal(id, { address, atMs });
        return outcome.from;
    }
  }

  owner(functionKey: string, keyHashHi: number, keyHashLo: number): { address: string; atMs: number } | undefined {
    const r = this.getRecord(stickyEntityId(functionKey, keyHashHi, keyHashLo));
    return r === undefined ? undefined : { address: r.address, atMs: r.atMs };
  }

  /** What the LRU holds, for /metrics: records, the bound, and records forgotten because it was full. */
  usage(): { entries: number; capacity: number; evictions: number } {
    return { entries: this.size, capacity: this.capacity, evictions: this.evictions };
  }

  /** Drop every key of a function (e.g. it was deleted); peers learn it through tombstones. */
  forgetFunction(functionKey: string): void {
    for (const id of [...this.knownIds()]) if (functionKeyOf(id) === functionKey) this.deleteLocally(id);
  }
}
