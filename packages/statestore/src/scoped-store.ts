import { DEFAULT_IDEMPOTENCY_RETENTION_MS } from '@orrery/spec';
import { StateStoreError } from './errors.ts';
import type { DeleteOptions, Entry, IdempotencyClaim, ListOptions, ListResult, ReadOutcome, Scope, SetOptions, StateDriver, WriteOutcome } from './types.ts';

/** Effective limits of one keyspace, resolved from its declaration (Function spec.state). */
export interface KeyspaceQuota {
  maxKeys: number;
  maxValueBytes: number;
  /** Applied to writes that carry no TTL; 0 = no expiry. */
  defaultTtlMs: number;
  /** How long idempotent writes' outcomes are kept (`spec.state.idempotencyRetention`); absent = the store's default. */
  idempotencyRetentionMs?: number;
}

/** A request's `Idempotency-Key` (validated), the digest of the request, and how long it asked its outcome be kept. */
export interface IdempotentRequest {
  key: string;
  requestHash: string;
  /**
   * `X-Orrery-Idempotency-Retention` in ms: the outcome is kept for the shorter of this and the
   * keyspace's retention (a request can shorten its record, never lengthen it). Absent = the keyspace's.
   */
  retentionMs?: number;
}

export type QuotaResolver = (scope: Scope) => KeyspaceQuota | undefined;

/**
 * The only way statesvc touches a driver (RFC-0023 scopedKV). Every write goes through
 * `setCounted`, so `maxKeys` and the namespace byte budget are enforced in the same step as
 * the write; the value size is checked before the driver sees anything.
 */
export class ScopedStore {
  constructor(
    private readonly driver: StateDriver,
    private readonly resolve: QuotaResolver,
    private readonly opts: { namespaceByteBudget?: number; /** Default 24h (`--idempotency-retention`). */ idempotencyRetentionMs?: number } = {},
  ) {}

  private undeclared(scope: Scope): Promise<never> {
    return Promise.reject(new StateStoreError('forbidden', `keyspace ${scope.namespace}/${scope.keyspace} is not declared by any function (spec.state)`));
  }

  /** The value-size refusal, checked before the driver sees anything. */
  private tooLarge(q: { maxValueBytes: number }, value: string): Promise<never> | undefined {
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes <= q.maxValueBytes) return undefined;
    return Promise.reject(new StateStoreError('quota_value_bytes', `value is ${bytes} bytes; this keyspace allows at most ${q.maxValueBytes}`, 'value_bytes'));
  }

  // Not `async`: returning the driver's promise from an async function costs extra microtask
  // turns per request; refusals are still rejected promises, never synchronous throws.

  get(scope: Scope, key: string): Promise<Entry | null> {
    if (!this.resolve(scope)) return this.undeclared(scope);
    return this.driver.get(scope, key);
  }

  set(scope: Scope, key: string, value: string, opts: SetOptions = {}): Promise<{ version: number }> {
    const q = this.resolve(scope);
    if (!q) return this.undeclared(scope);
    const tooLarge = this.tooLarge(q, value);
    if (tooLarge) return tooLarge;
    const ttlMs = opts.ttlMs ?? q.defaultTtlMs;
    return this.driver.setCounted(scope, key, value, { ifVersion: opts.ifVersion, ttlMs, fence: opts.fence }, { maxKeys: q.maxKeys, namespaceByteBudget: this.opts.namespaceByteBudget });
  }

  /** set with an `Idempotency-Key`: the outcome is stored with the write, or replayed (StateDriver.setIdempotent). */
  setIdempotent(scope: Scope, key: string, value: string, opts: SetOptions, idem: IdempotentRequest): Promise<WriteOutcome> {
    const q = this.resolve(scope);
    if (!q) return this.undeclared(scope);
    const tooLarge = this.tooLarge(q, value);
    if (tooLarge) return tooLarge;
    const ttlMs = opts.ttlMs ?? q.defaultTtlMs;
    return this.driver.setIdempotent(
      scope,
      key,
      value,
      { ifVersion: opts.ifVersion, ttlMs, fence: opts.fence },
      { maxKeys: q.maxKeys, namespaceByteBudget: this.opts.namespaceByteBudget },
      this.claim(q, idem),
    );
  }

  /** delete with an `Idempotency-Key` (StateDriver.deleteIdempotent). */
  deleteIdempotent(scope: Scope, key: string, opts: DeleteOptions, idem: IdempotentRequest): Promise<WriteOutcome> {
    const q = this.resolve(scope);
    if (!q) return this.undeclared(scope);
    return this.driver.deleteIdempotent(scope, key, opts, this.claim(q, idem));
  }

  /** get with an `Idempotency-Key`: the answer is recorded, or the record replayed (StateDriver.getRecorded). */
  getRecorded(scope: Scope, key: string, idem: IdempotentRequest): Promise<ReadOutcome> {
    const q = this.resolve(scope);
    if (!q) return this.undeclared(scope);
    return this.driver.getRecorded(scope, key, { namespaceByteBudget: this.opts.namespaceByteBudget }, this.claim(q, idem));
  }

  /** The driver's claim: the request's key and digest, kept for min(the request's retention, the keyspace's). */
  private claim(q: KeyspaceQuota, idem: IdempotentRequest): IdempotencyClaim {
    const keyspace = q.idempotencyRetentionMs ?? this.opts.idempotencyRetentionMs ?? DEFAULT_IDEMPOTENCY_RETENTION_MS;
    return { key: idem.key, requestHash: idem.requestHash, retentionMs: idem.retentionMs === undefined ? keyspace : Math.min(idem.retentionMs, keyspace) };
  }

  delete(scope: Scope, key: string, opts: DeleteOptions = {}): Promise<boolean> {
    if (!this.resolve(scope)) return this.undeclared(scope);
    return this.driver.delete(scope, key, opts);
  }

  /** A new fence for the key (StateDriver.claimFence); only in a declared keyspace. */
  claimFence(scope: Scope, key: string): Promise<number> {
    if (!this.resolve(scope)) return this.undeclared(scope);
    return this.driver.claimFence(scope, key);
  }

  list(scope: Scope, opts: ListOptions = {}): Promise<ListResult> {
    if (!this.resolve(scope)) return this.undeclared(scope);
    return this.driver.list(scope, opts);
  }
}
