import { bigint, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Per-minute sticky-routing counters per function, summed over router replicas (deltas of the
 * routers' monotonic counters), so the console can chart the last hour after a router restart.
 */
export const functionRollups = pgTable(
  'orrery_function_rollups',
  {
    minute: timestamp('minute', { withTimezone: true }).notNull(),
    namespace: text('namespace').notNull(),
    function: text('function').notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull().default(0),
    stickyRequests: bigint('sticky_requests', { mode: 'number' }).notNull().default(0),
    missingKeys: bigint('missing_keys', { mode: 'number' }).notNull().default(0),
    teleports: bigint('teleports', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.namespace, t.function, t.minute] })],
);

/** Per-minute keyed-state usage per keyspace (a gauge: the last sample of the minute). */
export const keyspaceRollups = pgTable(
  'orrery_keyspace_rollups',
  {
    minute: timestamp('minute', { withTimezone: true }).notNull(),
    namespace: text('namespace').notNull(),
    keyspace: text('keyspace').notNull(),
    keys: integer('keys').notNull().default(0),
    bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.namespace, t.keyspace, t.minute] })],
);
