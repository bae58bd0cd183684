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
