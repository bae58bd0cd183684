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
  delete(scope: Scope, key: string, opts?: { ifVersion?: number }): Promise<boolean>;
  list(scope: Scope, opts?: ListOptions): Promise<ListResult>;
}

/**
 * CountedKV (quota.tla): the live-key budget check and the write are one step, never
 * count-then-write. A key whose TTL passed stops counting at once.
 */
export interface CountedKV extends KVStore {
  setCounted(scope: Scope, key: string, value: string, opts: SetOptions, budget: WriteBudget): Promise<{ version: number }>;
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
  /** Deletes expired rows now; returns how many. */
  sweepExpired(): Promise<number>;
  /** The `<keyspace>#meta` row count (rows stored, live or not yet swept). For tests and audits. */
  metaCount(scope: Pick<Scope, 'namespace' | 'keyspace'>): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;
