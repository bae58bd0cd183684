/**
 * The KV surface every statestore driver implements (RFC-0023 §3–4). Values are JSON text;
 * the driver neither parses nor re-encodes them.
 */

/** Who owns a keyspace. Always built from a verified token, never from a request. */
export interface Scope {
  namespace: string;
  /** Fixed owner of function state (deliberately not the function's name, so renames keep data). */
  owner: string;
  keyspace: string;
}

export const STATE_OWNER = 'function-state';

export interface SetOptions {
  /** undefined = unconditional, 0 = create-only, > 0 = compare-and-swap against that version. */
  ifVersion?: number;
  /** Time to live in ms; undefined or 0 = the key never expires. */
  ttlMs?: number;
  /**
   * The writer's fence for this key (`claimFence`): the write lands only if it is the key's
   * current fence, checked in the same step as the write; otherwise `fenced`. Undefined = not
   * checked (writes without a fence keep working as before).
   */
  fence?: number;
}

/** Options of a delete: a precondition and a fence, as for a set. */
export interface DeleteOptions {
  ifVersion?: number;
  fence?: number;
}

export interface Entry {
  value: string;
  version: number;
  /** Epoch ms, or null when the key never expires. */
  expiresAt: number | null;
}

export interface ListOptions {
  prefix?: string;
  /** Opaque cursor from a previous page; '' or undefined = from the start. */
  cursor?: string;
  /** Page size, 1..1000 (default 100). */
  limit?: number;
}

export interface ListResult {
  keys: string[];
  /** '' when the listing is exhausted. */
  cursor: string;
}

/** What a counted write may consume; checked in the same step as the write. */
export interface WriteBudget {
  /** Live keys allowed in the keyspace (Infinity = no limit). */
  maxKeys: number;
  /** Bytes allowed across the namespace's keyspaces; 0 or undefined = no budget. */
  namespaceByteBudget?: number;
}

export interface Usage {
  keys: number;
  bytes: number;
}

export interface NamespaceUsage extends Usage {
  keyspaces: Array<{ keyspace: string } & Usage>;
}

export interface KVStore {
  get(scope: Scope, key: string): Promise<Entry | null>;
  /** Unconditional-budget write (same code path as setCounted with no limit). */
  set(scope: Scope, key: string, value: string, opts?: SetOptions): Promise<{ version: number }>;
  delete(scope: Scope, key: string, opts?: DeleteOptions): Promise<boolean>;
  list(scope: Scope, opts?: ListOptions): Promise<ListResult>;
}

/**
 * CountedKV (docs/specs/quota.md): the live-key budget check and the write are one step, never
 * count-then-write. A key whose TTL passed stops counting at once.
 */
export interface CountedKV extends KVStore {
  setCounted(scope: Scope, key: string, value: string, opts: SetOptions, budget: WriteBudget): Promise<{ version: number }>;
}

/** What happened to a key (the change feed, docs/state.md "Change feed"). */
export type ChangeOp = 'set' | 'delete' | 'expire';

/**
 * One change of a keyspace. `seq` numbers a keyspace's changes 1, 2, 3, … in commit order with
 * no gap; `version` is the version written (`set`) or removed (`delete`, `expire`); `value` is
 * the JSON text written, only for `set`; `at` the driver's clock when it was recorded (epoch ms).
 */
export interface ChangeRecord {
  seq: number;
  key: string;
  op: ChangeOp;
  version: number;
  value?: string;
  at: number;
}

export interface ChangesOptions {
  /** Changes with `seq > since`. */
  since: number;
  /** Only keys starting with this. */
  prefix?: string;
  /** At most this many changes (default 500). */
  limit?: number;
}

/**
 * The retained window of a keyspace's feed: every change with `low < seq <= head` is kept;
 * `low` is the newest pruned (0 = none), `head` the newest recorded (0 = none yet).
 */
export interface ChangeWindow {
  low: number;
  head: number;
}

/** One read of a feed, taken at one instant (one snapshot on Postgres). */
export interface ChangesPage extends ChangeWindow {
  /** `since < low`: changes after `since` were pruned; nothing is returned. */
  expired: boolean;
  changes: ChangeRecord[];
  /**
   * Where the next read resumes: the highest `seq` this read covered, the changes the prefix
   * filtered out included (`head` when the page is not full).
   */
  next: number;
}

/** How long changes are kept (pruned by `pruneChanges`, which statesvc's sweeper calls). */
export interface ChangeRetention {
  /** Changes recorded longer ago than this are pruned; 0 = no age bound. */
  maxAgeMs: number;
  /** Only the newest this many changes of a keyspace are kept; 0 = no count bound. */
  maxEvents: number;
}

export const DEFAULT_CHANGES_LIMIT = 500;

/**
 * A write (or a recorded read) sent with `Idempotency-Key` (docs/state.md "Idempotent writes",
 * "Recorded reads"). A write's outcome is stored with the write, in the same transaction
 * (Postgres) or the same journal line (memory); a read's with the read.
 */
export interface IdempotencyClaim {
  /** The client's key, already validated (`parseIdempotencyKey`); scoped to the request's keyspace. */
  key: string;
  /** Digest of everything the request asked for: the same key with another digest is refused. */
  requestHash: string;
  /** How long the outcome is kept, in ms (> 0): the keyspace's retention, or less when the request asked for less. */
  retentionMs: number;
}

/**
 * How a write ended, as stored and replayed: `ok` (set: `version` written), `version_conflict`,
 * `deleted`, `missing` (delete of an absent key). Quota refusals are never stored: freeing
 * space and retrying must be able to succeed.
 */
export type WriteResult = 'ok' | 'version_conflict' | 'deleted' | 'missing';

export interface WriteOutcome {
  /** The HTTP status of the answer: 200, 404 (delete of a missing key) or 412. */
  status: number;
  result: WriteResult;
  /** The version written when `result` is `ok`, else null. */
  version: number | null;
  /** True when this is the stored outcome of an earlier request: nothing was written now. */
  replayed: boolean;
}

/**
 * What a recorded read answered, as stored and replayed (docs/state.md "Recorded reads"): the
 * live entry (200, `entry` set: value, version and deadline as read) or nothing (404, null).
 */
export interface ReadOutcome {
  status: 200 | 404;
  entry: Entry | null;
  /** True when this is the record of an earlier request: the key was not read now (it may have changed since). */
  replayed: boolean;
}

/** What a recorded read may consume: only bytes (a record is never a key). */
export type RecordBudget = Pick<WriteBudget, 'namespaceByteBudget'>;

/** Stored idempotency outcomes of a keyspace that have not expired: writes' outcomes and recorded reads. */
export interface IdempotencyUsage {
  records: number;
  /** What they count against the namespace byte budget (`idempotencyRecordBytes` each, plus the value for a recorded read). */
  bytes: number;
}

/** A keyspace's fences (docs/state.md "Fencing"): how many keys were claimed, and the newest claims. */
export interface FenceSummary {
  /** Keys of the keyspace that hold a fence (claimed at least once since the keyspace was last deleted). */
  keys: number;
  /** The most recently claimed keys with their current fence, newest (highest fence) first. */
  newest: Array<{ key: string; fence: number }>;
}

/** A full driver: counted KV plus the accounting and lifecycle the service needs. */
export interface StateDriver extends CountedKV {
  readonly name: 'memory' | 'postgres';
  usage(scope: Pick<Scope, 'namespace' | 'keyspace'>): Promise<Usage>;
  namespaceUsage(namespace: string): Promise<NamespaceUsage>;
  /** Every namespace that holds rows. */
  namespaces(): Promise<string[]>;
  /**
   * Removes every key of a keyspace and its `#meta` row in one step (the operator's keyspace
   * deletion policy `delete`); returns how many live keys it held. Idempotent: 0 the second time.
   */
  deleteKeyspace(scope: Pick<Scope, 'namespace' | 'keyspace'>): Promise<number>;
  /** Deletes expired rows now, idempotency outcomes past their retention included; returns how many. */
  sweepExpired(): Promise<number>;
  /**
   * setCounted with an `Idempotency-Key`: the first request with `claim.key` in the keyspace
   * writes and stores its outcome in the same step; a later one with the same `requestHash`
   * gets that outcome (`replayed`) and writes nothing; another hash is `idempotency_mismatch`.
   * Concurrent requests with one key apply once. A replay is answered before any fence check
   * (it writes nothing); a `fenced` refusal, like a quota refusal, is thrown and not stored. A version conflict is an outcome (stored,
   * returned); a quota refusal is thrown and not stored. The stored outcome counts
   * `idempotencyRecordBytes(claim.key)` against `budget.namespaceByteBudget` (never as a key).
   */
  setIdempotent(scope: Scope, key: string, value: string, opts: SetOptions, budget: WriteBudget, claim: IdempotencyClaim): Promise<WriteOutcome>;
  /** delete with an `Idempotency-Key`, as setIdempotent. A delete is never refused for the budget. */
  deleteIdempotent(scope: Scope, key: string, opts: DeleteOptions, claim: IdempotencyClaim): Promise<WriteOutcome>;
  /**
   * get with an `Idempotency-Key` (a recorded read): the first request with `claim.key` reads the
   * live entry — a committed value at the time of the request — and stores what it found (or
   * that it found nothing) under the key in the same step; a later one with the same
   * `requestHash` gets that record (`replayed`), whatever the key holds now; another hash is
   * `idempotency_mismatch` (so is a write's key reused for a read, and the reverse). Concurrent
   * requests with one key read once. The record counts `recordedReadBytes(claim.key, value
   * bytes)` against `budget.namespaceByteBudget`; a record that does not fit is refused with
   * `quota_keys` (kind `namespace_bytes`) and not stored — a read that should be recorded is never
   * answered unrecorded.
   */
  getRecorded(scope: Scope, key: string, budget: RecordBudget, claim: IdempotencyClaim): Promise<ReadOutcome>;
  /**
   * Claims a key for a writer (docs/state.md "Fencing"): returns a fence higher than any issued
   * before for the key (from the global version sequence), minted linearizably; from then on
   * writes carrying an older fence are refused (`fenced`). A fence is accepted only while it is
   * the key's current one, so "the highest claimed or accepted" is always the last claimed.
   * Fences outlive their key's deletion; `deleteKeyspace` removes them.
   */
  claimFence(scope: Pick<Scope, 'namespace' | 'keyspace'>, key: string): Promise<number>;
  /** The keyspace's fences: their count and the `limit` newest claims (console, admin API). */
  fenceSummary(scope: Pick<Scope, 'namespace' | 'keyspace'>, limit: number): Promise<FenceSummary>;
  /** The keyspace's stored idempotency outcomes within their retention. */
  idempotencyUsage(scope: Pick<Scope, 'namespace' | 'keyspace'>): Promise<IdempotencyUsage>;
  /** The keyspace's changes after `since`, in `seq` order (see ChangesPage). */
  changes(scope: Pick<Scope, 'namespace' | 'keyspace'>, opts: ChangesOptions): Promise<ChangesPage>;
  /** The retained window (its low-water mark and newest change). */
  changeWindow(scope: Pick<Scope, 'namespace' | 'keyspace'>): Promise<ChangeWindow>;
  /**
   * Calls `wake` (soon, not necessarily once per change) after changes of the keyspace commit,
   * also those another statesvc replica wrote (Postgres: LISTEN/NOTIFY). Only a wake-up: the
   * feed itself is read with `changes`. Returns the unsubscribe function.
   */
  watchChanges(scope: Pick<Scope, 'namespace' | 'keyspace'>, wake: () => void): () => void;
  /** Prunes changes outside the retention, every keyspace; returns how many. */
  pruneChanges(retention: ChangeRetention): Promise<number>;
  /** The `<keyspace>#meta` row count (rows stored, live or not yet swept). For tests and audits. */
  metaCount(scope: Pick<Scope, 'namespace' | 'keyspace'>): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;
