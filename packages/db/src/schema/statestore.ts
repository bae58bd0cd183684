import { sql } from 'drizzle-orm';
import { bigint, customType, index, integer, pgSequence, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** text compared byte-wise (UTF-8 order), so btree ranges match the memory driver's order. */
const byteOrderedText = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

/**
 * Keyed function state (RFC-0023). Keys use the "C" collation so ordering is by UTF-8 bytes
 * (the memory driver sorts the same way) and a prefix list is a primary-key range scan.
 * Values are JSON text; versions come from one global sequence so a key's version only grows,
 * even across delete and re-create (no ABA for CAS holders).
 */
export const stateEntries = pgTable(
  'state_entries',
  {
    namespace: text('namespace').notNull(),
    keyspace: text('keyspace').notNull(),
    key: byteOrderedText('key').notNull(),
    value: text('value').notNull(),
    bytes: integer('bytes').notNull(),
    version: bigint('version', { mode: 'number' }).notNull(),
    // Epoch milliseconds; null = never expires. Every read filters on it, the sweeper deletes.
    expiresAt: bigint('expires_at', { mode: 'number' }),
  },
  (t) => [
    primaryKey({ columns: [t.namespace, t.keyspace, t.key] }),
    index('state_entries_expiry_idx').on(t.namespace, t.keyspace, t.expiresAt).where(sql`${t.expiresAt} is not null`),
  ],
);

/**
 * The `<keyspace>#meta` accounting row: number of stored rows of a keyspace (live or expired
 * but not yet swept). Every write that can change it locks it FOR UPDATE first, so the
 * maxKeys check and the write are one step. The row with keyspace `#namespace` is the lock
 * taken by writes while a namespace byte budget is in force ('#' is never in a keyspace).
 */
export const stateMeta = pgTable(
  'state_meta',
  {
    namespace: text('namespace').notNull(),
    keyspace: text('keyspace').notNull(),
    keys: integer('keys').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.namespace, t.keyspace] })],
);

export const stateVersionSeq = pgSequence('state_version_seq', { startWith: 1, increment: 1, cache: 1 });

/**
 * The keyspace change feed's counter (docs/state.md "Change feed"): `seq` is the last change
 * number handed out in the keyspace, `low` the newest one pruned (a reader resuming after a
 * `since` below `low` missed events). Incremented in the write's own transaction and kept
 * locked until it commits, so changes commit in `seq` order with no gap (migration 0005).
 * Never deleted with the keyspace, so numbers are never reused.
 */
export const stateChangeHeads = pgTable(
  'state_change_heads',
  {
    namespace: text('namespace').notNull(),
    keyspace: text('keyspace').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    low: bigint('low', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.namespace, t.keyspace] })],
);

/**
 * One row per change of a key: `op` is `set` (value = the new value), `delete` or `expire`
 * (value null); `version` is the key's version written or removed; `at` the writer's clock in
 * epoch ms (time-based retention). Pruned by the sweeper (orrery_state_prune_changes).
 */
export const stateChanges = pgTable(
  'state_changes',
  {
    namespace: text('namespace').notNull(),
    keyspace: text('keyspace').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    key: byteOrderedText('key').notNull(),
    op: text('op').notNull(),
    version: bigint('version', { mode: 'number' }).notNull(),
    value: text('value'),
    at: bigint('at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.namespace, t.keyspace, t.seq] })],
);

/**
 * Outcomes of writes sent with `Idempotency-Key` (docs/state.md "Idempotent writes"), one row
 * per (namespace, keyspace, key): the request's digest, the HTTP status and result answered and
 * the version written. Written in the write's own transaction by orrery_state_set_idempotent /
 * orrery_state_delete_idempotent (migration 0006); `pending` only inside that transaction.
 * A recorded read (a GET with the header, "Recorded reads"; orrery_state_get_recorded, migration
 * 0009) stores what it found: result `found` with the entry's `value`, `version` and
 * `value_expires_at`, or `missing` (404). Kept until `expires_at` (epoch ms), then deleted by
 * the sweeper. `bytes` is what the row counts against the namespace byte budget
 * (idempotencyRecordBytes in @orrery/spec; recordedReadBytes, with the value, for a read).
 */
export const stateIdempotency = pgTable(
  'state_idempotency',
  {
    namespace: text('namespace').notNull(),
    keyspace: text('keyspace').notNull(),
    idemKey: byteOrderedText('idem_key').notNull(),
    requestHash: text('request_hash').notNull(),
    status: integer('status').notNull(),
    result: text('result').notNull(),
    version: bigint('version', { mode: 'number' }),
    bytes: integer('bytes').notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    /** A recorded read that found the key: the value it read (null for every other outcome). */
    value: text('value'),
    /** With `value`: that entry's deadline (epoch ms), null when it never expires. */
    valueExpiresAt: bigint('value_expires_at', { mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.namespace, t.keyspace, t.idemKey] }), index('state_idempotency_expiry_idx').on(t.expiresAt)],
);

/**
 * Write fences (docs/state.md "Fencing"), one row per (namespace, keyspace, key) ever claimed:
 * the key's current fence, from `state_version_seq`. Claimed by orrery_state_claim_fence; a
 * write with a fence share-locks the row and lands only if its fence equals it (migration 0007).
 * Removed with the keyspace, never with the key (a late write after a delete stays fenced).
 */
export const stateFences = pgTable(
  'state_fences',
  {
    namespace: text('namespace').notNull(),
    keyspace: text('keyspace').notNull(),
    key: byteOrderedText('key').notNull(),
    fence: bigint('fence', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.namespace, t.keyspace, t.key] })],
);
