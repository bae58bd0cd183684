import { bigserial, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The admin audit log (packages/api): one row per mutating call, written whether it succeeded or
 * was refused (validation, forbidden), so "who changed what" has a complete answer. `input` is
 * the call's input with secrets removed by the caller; before/after are short summaries, not
 * whole objects.
 */
export const auditLog = pgTable(
  'orrery_audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    who: text('who').notNull(),
    role: text('role').notNull(),
    action: text('action').notNull(),
    target: text('target').notNull().default(''),
    input: jsonb('input'),
    result: text('result', { enum: ['ok', 'error'] }).notNull(),
    error: text('error'),
    before: jsonb('before'),
    after: jsonb('after'),
  },
  (t) => [index('orrery_audit_log_at').on(t.at), index('orrery_audit_log_who_at').on(t.who, t.at), index('orrery_audit_log_action_at').on(t.action, t.at)],
);
