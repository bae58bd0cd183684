import type { Delta, DeltaSyncable, StalePolicy, TombstoneSupport } from './syncable.ts';

/**
 * How one kind of record merges. Records travel as small JSON objects; a deletion travels as the
 * tombstone `{"deleted":true,"at":<ms>}` so peers learn of it (and ignore older records after it).
 */
export interface MergeRules<R> {
  namespace: string;
  now?: () => number;
  toJson(record: R): Record<string, unknown>;
  /** Throws on a malformed record (the manager logs and skips it). */
  fromJson(json: Record<string, unknown>): R;
  /** True when `incoming` should replace `existing` (must be a strict order so replicas converge). */
  prefer(incoming: R, existing: R): boolean;
  /** When the record was written; a tombstone only removes records written no later than it. */
  stampMs(record: R): number;
  /** Expired/stale records are dropped locally, never pushed, and DELeted from Redis on pull. */
  expired(record: R, nowMs: number): boolean;
  /**
   * Re-push a live record not written to Redis for this long, so it outlives the per-record TTL
   * (2 min by default) while some replica still holds it. Default 60 s (half the default TTL).
   */
  refreshAfterMs?: number;
  /** How long to remember a deletion, to refuse older records arriving late. Default 5 min. */
  tombstoneRetentionMs?: number;
  /**
   * Bound on the records kept (default: none). Beyond it the least recently used record is
   * forgotten locally — no tombstone: peers keep theirs and Redis lets it expire by its TTL; an
   * evicted record that was still dirty is never pushed (the seed's LRU-eviction boundary).
   * "Used" = written here, adopted from a peer, or `touch`ed.
   */
  maxRecords?: number;
}

interface Tombstone {
  deleted: true;
  at: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function parse(bytes: Uint8Array): Record<string, unknown> {
  const value: unknown = JSON.parse(decoder.decode(bytes));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('record is not a JSON object');
  return value as Record<string, unknown>;
}

function asTombstone(json: Record<string, unknown>): Tombstone | undefined {
  return json.deleted === true && typeof json.at === 'number' ? { deleted: true, at: json.at } : undefined;
}

/**
 * A replicated last-writer-wins table with dirty tracking, tombstones and staleness: the common core of
 * the router's shared tables. Subclasses expose domain methods and call `setLocal` / `deleteLocally`.
 */
export class MergeTable<R> implements DeltaSyncable, StalePolicy, TombstoneSupport {
  readonly namespace: string;
  protected readonly now: () => number;
  private readonly records = new Map<string, R>();
  private readonly deletedAt = new Map<string, number>();
  private readonly lastWrittenAt = new Map<string, number>();
  /** id → sequence number of its latest local change; cleared only if unchanged since the delta. */
  private readonly dirty = new Map<string, number>();
  private seq = 0;
  private readonly captured = new WeakMap<Delta, Map<string, number>>();
  private readonly refreshAfterMs: number;
  private readonly tombstoneRetentionMs: number;
  private readonly maxRecords: number;
  private evicted = 0;

  constructor(private readonly rules: MergeRules<R>) {
    if (!rules.namespace) throw new Error('MergeTable: namespace must be non-empty');
    this.namespace = rules.namespace;
    this.now = rules.now ?? Date.now;
    this.refreshAfterMs = rules.refreshAfterMs ?? 60_000;
    this.tombstoneRetentionMs = rules.tombstoneRetentionMs ?? 300_000;
    const max = rules.maxRecords ?? Number.POSITIVE_INFINITY;
    if (!(max >= 1) || (Number.isFinite(max) && !Number.isInteger(max))) throw new RangeError(`MergeTable: maxRecords must be a positive integer, got ${max}`);
    this.maxRecords = max;
  }

  /** Records held (live or expired and not yet pruned); never above `maxRecords`. */
  get size(): number {
    return this.records.size;
  }

  /** The bound on records (Infinity when unbounded). */
  get capacity(): number {
    return this.maxRecords;
  }

  /** Records forgotten because the table was full, since it was created. */
  get evictions(): number {
    return this.evicted;
  }

  // ---- for subclasses ---------------------------------------------------------------------------

  /** The live record for id (expired ones read as absent). */
  protected getRecord(id: string, nowMs = this.now()): R | undefined {
    const r = this.records.get(id);
    return r !== undefined && !this.rules.expired(r, nowMs) ? r : undefined;
  }

  protected liveRecords(nowMs = this.now()): Array<[string, R]> {
    return [...this.records].filter(([, r]) => !this.rules.expired(r, nowMs));
  }

  /** A local write: merged with `prefer`; when it wins it is stored and marked dirty. */
  protected setLocal(id: string, record: R): boolean {
    const existing = this.getRecord(id);
    if (existing !== undefined && !this.rules.prefer(record, existing)) return false;
    this.place(id, record);
    this.markDirty(id);
    return true;
  }

  /** Marks a record as just used (LRU order) without changing it; false when there is none. */
  protected touch(id: string): boolean {
    const r = this.records.get(id);
    if (r === undefined) return false;
    this.place(id, r);
    return true;
  }

  /** A local delete: becomes a tombstone on the next push (even if the id was unknown here). */
  protected deleteLocally(id: string): void {
    this.records.delete(id);
    this.deletedAt.set(id, this.now());
    this.markDirty(id);
  }

  protected knownIds(): IterableIterator<string> {
    return this.records.keys();
  }

  // ---- Syncable --------------------------------------------------------------------------------

  snapshot(): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    for (const [id, r] of this.liveRecords()) out.set(id, this.encode(r));
    return out;
  }

  applyRemote(id: string, bytes: Uint8Array): void {
    const json = parse(bytes);
    const tomb = asTombstone(json);
    if (tomb) return this.applyTombstone(id, tomb.at);
    const incoming = this.rules.fromJson(json);
    const nowMs = this.now();
    if (this.rules.expired(incoming, nowMs)) return;
    const deleted = this.deletedAt.get(id);
    if (deleted !== undefined && this.rules.stampMs(incoming) <= deleted) return; // older than a known delete
    const existing = this.getRecord(id, nowMs);
    if (existing === undefined || this.rules.prefer(incoming, existing)) {
      this.place(id, incoming);
      this.dirty.delete(id); // Redis already holds something at least as new as anything we had
      this.lastWrittenAt.set(id, nowMs);
    } else if (!this.rules.prefer(existing, incoming)) {
      // Same record as ours: Redis is up to date, nothing to push.
      this.dirty.delete(id);
      this.lastWrittenAt.set(id, nowMs);
    }
    // else ours is newer and stays dirty, so this cycle's push overwrites the older remote record.
  }

  // ---- DeltaSyncable ---------------------------------------------------------------------------

  delta(): Delta {
    const nowMs = this.now();
    this.prune(nowMs);
    const upserts = new Map<string, Uint8Array>();
    const deletes: string[] = [];
    const seqs = new Map<string, number>();
    for (const [id, seq] of this.dirty) {
      const r = this.records.get(id);
      if (r !== undefined) upserts.set(id, this.encode(r));
      else if (this.deletedAt.has(id)) deletes.push(id);
      else continue;
      seqs.set(id, seq);
    }
    for (const [id, r] of this.records) {
      if (this.dirty.has(id)) continue;
      const written = this.lastWrittenAt.get(id);
      if (written === undefined || nowMs - written >= this.refreshAfterMs) {
        upserts.set(id, this.encode(r));
        seqs.set(id, 0);
      }
    }
    const delta: Delta = { upserts, deletes };
    this.captured.set(delta, seqs);
    return delta;
  }

  clearDirty(pushed: Delta): void {
    const seqs = this.captured.get(pushed);
    if (!seqs) return;
    const nowMs = this.now();
    for (const [id, seq] of seqs) {
      if (seq !== 0 && this.dirty.get(id) === seq) this.dirty.delete(id);
      if (pushed.upserts.has(id)) this.lastWrittenAt.set(id, nowMs);
    }
    this.captured.delete(pushed);
  }

  /** Ids changed locally and not yet pushed (for tests and diagnostics). */
  dirtyIds(): string[] {
    return [...this.dirty.keys()];
  }

  // ---- StalePolicy -----------------------------------------------------------------------------

  isStale(_id: string, bytes: Uint8Array): boolean {
    try {
      const json = parse(bytes);
      if (asTombstone(json)) return false;
      return this.rules.expired(this.rules.fromJson(json), this.now());
    } catch {
      return false; // unreadable (e.g. a newer format): let applyRemote report it, never delete it
    }
  }

  // ---- TombstoneSupport ------------------------------------------------------------------------

  makeTombstone(id: string): Uint8Array {
    const tomb: Tombstone = { deleted: true, at: this.deletedAt.get(id) ?? this.now() };
    return encoder.encode(JSON.stringify(tomb));
  }

  isTombstone(bytes: Uint8Array): boolean {
    try {
      return asTombstone(parse(bytes)) !== undefined;
    } catch {
      return false;
    }
  }

  deleteLocal(id: string, tombstone?: Uint8Array): void {
    let at = this.now();
    if (tombstone) {
      try {
        at = asTombstone(parse(tombstone))?.at ?? at;
      } catch {
        /* keep now */
      }
    }
    this.applyTombstone(id, at);
  }

  /** A record encoded as it travels (for write-through `put`). */
  encoded(id: string): Uint8Array | undefined {
    const r = this.getRecord(id);
    return r === undefined ? undefined : this.encode(r);
  }

  // ---- internals -------------------------------------------------------------------------------

  private applyTombstone(id: string, at: number): void {
    const existing = this.records.get(id);
    if (existing !== undefined && this.rules.stampMs(existing) > at) {
      // Written after the peer's delete: keep it and push it over the tombstone.
      this.markDirty(id);
      return;
    }
    this.records.delete(id);
    this.lastWrittenAt.delete(id);
    this.deletedAt.set(id, Math.max(this.deletedAt.get(id) ?? at, at));
    this.dirty.delete(id);
  }

  /** Stores `record` as the most recently used one, then forgets the least recently used beyond the bound. */
  private place(id: string, record: R): void {
    this.records.delete(id); // Map order is insertion order: re-inserting moves the id to the end
    this.records.set(id, record);
    while (this.records.size > this.maxRecords) {
      const oldest = this.records.keys().next().value as string;
      this.records.delete(oldest);
      this.lastWrittenAt.delete(oldest);
      this.dirty.delete(oldest);
      this.evicted++;
    }
  }

  private markDirty(id: string): void {
    this.dirty.set(id, ++this.seq);
  }

  private encode(r: R): Uint8Array {
    return encoder.encode(JSON.stringify(this.rules.toJson(r)));
  }

  private prune(nowMs: number): void {
    for (const [id, r] of this.records) {
      if (!this.rules.expired(r, nowMs)) continue;
      this.records.delete(id);
      this.lastWrittenAt.delete(id);
      this.dirty.delete(id);
    }
    for (const [id, at] of this.deletedAt) {
      if (nowMs - at > this.tombstoneRetentionMs && !this.dirty.has(id)) this.deletedAt.delete(id);
    }
  }
}
