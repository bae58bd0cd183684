import { createHash } from 'node:crypto';

/**
 * Which unprivileged uid a local worker runs as when the operator runs as root (issue 20 item 7).
 * File modes mean nothing to root, so as root every worker could read every token file, the
 * master key and every other worker's /proc/<pid>/environ. Each function gets its own uid (and a
 * group of the same number):
 *
 * - deploy workers: one uid per `namespace/function`, stable across restarts — hashed into the
 *   range, linear probing past taken ones, remembered in a table the operator keeps on disk;
 * - pool workers: a fresh uid per generic worker (it does not know its function yet, and two
 *   functions specialized from one pool must not share one), taken from the same range in turn
 *   and released when the worker is gone.
 *
 * No uid is handed to two holders at once. Pure: persistence is the caller's (`toJSON`).
 */
export interface UidRange {
  first: number;
  last: number;
}

export const DEFAULT_UID_RANGE: UidRange = { first: 200_000, last: 299_999 };

/** `FIRST-LAST` (inclusive), both above the system's ids and below 2^31. */
export function parseUidRange(text: string): UidRange {
  const m = /^(\d+)-(\d+)$/.exec(text.trim());
  const range = m ? { first: Number(m[1]), last: Number(m[2]) } : undefined;
  if (!range || range.first < 1000 || range.last < range.first + 15 || range.last >= 2 ** 31 - 1) {
    throw new Error(`--worker-uid-range takes FIRST-LAST with 1000 <= FIRST, at least 16 ids, LAST < 2147483647 (got ${JSON.stringify(text)})`);
  }
  return range;
}

const size = (r: UidRange) => r.last - r.first + 1;

export class WorkerUidAllocator {
  /** `namespace/function` → uid, kept across restarts. */
  private readonly byFunction = new Map<string, number>();
  private readonly transient = new Set<number>();
  private readonly taken = new Set<number>();
  private cursor: number;

  constructor(
    readonly range: UidRange = DEFAULT_UID_RANGE,
    persisted: Record<string, number> = {},
  ) {
    for (const [key, uid] of Object.entries(persisted)) {
      // A table from another range (the flag changed) or a clash is dropped: re-allocated below.
      if (Number.isInteger(uid) && uid >= range.first && uid <= range.last && !this.taken.has(uid)) {
        this.byFunction.set(key, uid);
        this.taken.add(uid);
      }
    }
    this.cursor = range.first + (hash('transient') % size(range));
  }

  /** The function's uid (allocated on first use). `changed` says whether the table must be saved. */
  forFunction(namespace: string, fn: string): { uid: number; changed: boolean } {
    const key = `${namespace}/${fn}`;
    const known = this.byFunction.get(key);
    if (known !== undefined) return { uid: known, changed: false };
    const uid = this.probe(this.range.first + (hash(key) % size(this.range)));
    this.byFunction.set(key, uid);
    this.taken.add(uid);
    return { uid, changed: true };
  }

  /** A uid no one else holds, for one pool worker, until `release(uid)`. */
  acquireTransient(): number {
    const uid = this.probe(this.cursor);
    this.cursor = uid === this.range.last ? this.range.first : uid + 1;
    this.transient.add(uid);
    this.taken.add(uid);
    return uid;
  }

  release(uid: number): void {
    if (this.transient.delete(uid)) this.taken.delete(uid);
  }

  /** The persistent table (functions only). */
  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.byFunction].sort(([a], [b]) => a.localeCompare(b)));
  }

  private probe(start: number): number {
    const n = size(this.range);
    for (let i = 0; i < n; i++) {
      const uid = this.range.first + ((start - this.range.first + i) % n);
      if (!this.taken.has(uid)) return uid;
    }
    throw new Error(`every uid of ${this.range.first}-${this.range.last} is in use: widen --worker-uid-range`);
  }
}

function hash(s: string): number {
  return createHash('sha256').update(s).digest().readUInt32BE(0);
}
