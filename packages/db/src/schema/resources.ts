import { bigint, bigserial, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The resource store (packages/store): one row per object, `resource_version` taken from the
 * event that last wrote it, so list + watch share one ordering (like etcd's revision).
 */
export const resources = pgTable(
  'orrery_resources',
  {
    kind: text('kind').notNull(),
    namespace: text('namespace').notNull(),
    name: text('name').notNull(),
    uid: text('uid').notNull(),
    resourceVersion: bigint('resource_version', { mode: 'number' }).notNull(),
    generation: integer('generation').notNull(),
    /** metadata without the server-owned fields (labels, annotations, finalizers, owners). */
    metadata: jsonb('metadata').notNull(),
    spec: jsonb('spec').notNull(),
    status: jsonb('status'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.namespace, t.name] }), index('orrery_resources_kind_rv').on(t.kind, t.resourceVersion)],
);

/** Every change as an event, kept for a while so watches can resume from a resourceVersion. */
export const resourceEvents = pgTable(
  'orrery_resource_events',
  {
    resourceVersion: bigserial('resource_version', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    namespace: text('namespace').notNull(),
    name: text('name').notNull(),
    type: text('type').notNull(),
    object: jsonb('object').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('orrery_resource_events_kind_rv').on(t.kind, t.resourceVersion)],
);

/** Small key/value facts about the store itself, e.g. the highest compacted event revision. */
export const storeState = pgTable('orrery_store_state', {
  key: text('key').primaryKey(),
  value: bigint('value', { mode: 'number' }).notNull(),
});
