import { idempotencyRecordBytes, recordedReadBytes } from '@orrery/spec';
import { encodeIdempotency, type IdempotencyFields } from './memory-journal.ts';
import type { Entry, IdempotencyClaim, IdempotencyUsage, WriteResult } from './types.ts';

/** One stored outcome (the journal's `idem` fields plus what it counts against a byte budget). */
export interface StoredOutcome extends IdempotencyFields {
  bytes: number;
}

/** The outcome a claim stores once its write has been decided (`exp` from the claim's retention). */
export function outcomeFields(claim: IdempotencyClaim, now: number, status: number, res: WriteResult, ver: number | null): IdempotencyFields {
  return { k: claim.key, h: claim.requestHash, exp: now + claim.retentionMs, st: status, res, ver };
}

/** What a recorded read stores: the live entry it found (value, version, deadline), or that it found none. */
export function readOutcomeFields(claim: IdempotencyClaim, now: number, entry: Entry | null): IdempotencyFields {
  const exp = now + claim.retentionMs;
  if (!entry) return { k: claim.key, h: claim.requestHash, exp, st: 404, res: 'missing', ver: null };
  return { k: claim.key, h: claim.requestHash, exp, st: 200, res: 'found', ver: entry.version, v: entry.value, vexp: entry.expiresAt };
}

/** Bytes an outcome counts against a namespace byte budget: a recorded read's copy of the value included. */
export function outcomeBytes(f: IdempotencyFields): number {
  return f.v === undefined ? idempotencyRecordBytes(f.k) : recordedReadBytes(f.k, Buffer.byteLength(f.v, 'utf8'));
}

/**
 * The memory driver's idempotency outcomes, by namespace → keyspace → key. Kept apart from the
 * rows: an outcome is not a key (never listed or counted by maxKeys) and outlives a keyspace
 * deletion until its retention ends, as on Postgres — except a recorded read holding a copy of a
 * value, which goes with the keyspace (`dropValueCopies`; migration 0010). Bytes are counted per namespace
 * (outcomes past their retention included until purged) for the namespace byte budget.
 */
export class MemoryIdempotency {
  private readonly byNamespace = new Map<string, Map<string, Map<string, StoredOutcome>>>();
  private readonly nsBytes = new Map<string, number>();

  /** The outcome stored for `key`, or undefined (one past its retention is as good as absent). */
  live(namespace: string, keyspace: string, key: string, now: number): StoredOutcome | undefined {
    const rec = this.byNamespace.get(namespace)?.get(keyspace)?.get(key);
    return rec && rec.exp > now ? rec : undefined;
  }

  /** Stores an outcome, replacing one past its retention. */
  put(namespace: string, keyspace: string, f: IdempotencyFields): void {
    let ns = this.byNamespace.get(namespace);
    if (!ns) {
      ns = new Map();
      this.byNamespace.set(namespace, ns);
    }
    let ks = ns.get(keyspace);
    if (!ks) {
      ks = new Map();
      ns.set(keyspace, ks);
    }
    const bytes = outcomeBytes(f);
    const old = ks.get(f.k);
    ks.set(f.k, { ...f, bytes });
    this.nsBytes.set(namespace, (this.nsBytes.get(namespace) ?? 0) - (old?.bytes ?? 0) + bytes);
  }

  /** Bytes of the namespace's outcomes, those past their retention but not yet purged included. */
  bytes(namespace: string): number {
    return this.nsBytes.get(namespace) ?? 0;
  }

  /** Drops the namespace's outcomes past their retention (before a budget refusal); returns how many. */
  purgeNamespace(namespace: string, now: number): number {
    return this.dropWhere(namespace, undefined, (rec) => rec.exp <= now);
  }

  /** A keyspace deletion: drops its recorded reads that hold a value; returns how many. */
  dropValueCopies(namespace: string, keyspace: string): number {
    return this.dropWhere(namespace, keyspace, (rec) => rec.v !== undefined);
  }

  /** Drops the outcomes `drop` picks, in one keyspace or all of the namespace; keeps the byte count. */
  private dropWhere(namespace: string, onlyKeyspace: string | undefined, drop: (rec: StoredOutcome) => boolean): number {
    const ns = this.byNamespace.get(namespace);
    if (!ns) return 0;
    let n = 0;
    for (const [keyspace, ks] of ns) {
      if (onlyKeyspace !== undefined && keyspace !== onlyKeyspace) continue;
      for (const [key, rec] of ks) {
        if (!drop(rec)) continue;
        ks.delete(key);
        this.nsBytes.set(namespace, (this.nsBytes.get(namespace) ?? 0) - rec.bytes);
        n++;
      }
      if (ks.size === 0) ns.delete(keyspace);
    }
    if (ns.size === 0) {
      this.byNamespace.delete(namespace);
      this.nsBytes.delete(namespace);
    }
    return n;
  }

  /** True when the keyspace has a recorded read holding a value (its deletion has something to drop). */
  hasValueCopies(namespace: string, keyspace: string): boolean {
    for (const rec of this.byNamespace.get(namespace)?.get(keyspace)?.values() ?? []) if (rec.v !== undefined) return true;
    return false;
  }

  /** The sweeper: drops every outcome past its retention; returns how many. */
  purge(now: number): number {
    let n = 0;
    for (const namespace of [...this.byNamespace.keys()]) n += this.purgeNamespace(namespace, now);
    return n;
  }

  usage(namespace: string, keyspace: string, now: number): IdempotencyUsage {
    let records = 0;
    let bytes = 0;
    for (const rec of this.byNamespace.get(namespace)?.get(keyspace)?.values() ?? []) {
      if (rec.exp > now) {
        records++;
        bytes += rec.bytes;
      }
    }
    return { records, bytes };
  }

  /** The outcomes within their retention as journal lines (a compaction's snapshot). */
  *snapshotLines(now: number): Generator<string> {
    for (const [namespace, ns] of this.byNamespace) {
      for (const [keyspace, ks] of ns) {
        for (const rec of ks.values()) {
          // encodeIdempotency writes the outcome's fields only (not `bytes`, which a replay recomputes).
          if (rec.exp > now) yield encodeIdempotency(namespace, keyspace, rec);
        }
      }
    }
  }
}
