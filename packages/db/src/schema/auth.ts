import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Console/API users; the password is stored as `scrypt$<N>$<r>$<p>$<salt hex>$<hash hex>`. */
export const users = pgTable('orrery_users', {
  name: text('name').primaryKey(),
  role: text('role', { enum: ['viewer', 'operator', 'admin'] }).notNull(),
  passwordHash: text('password_hash').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Login sessions. The cookie carries 32 random bytes (hex); only their SHA-256 is stored, so a
 * read of this table does not hand out live sessions. `who` is a user name or `admin-token`.
 */
export const sessions = pgTable(
  'orrery_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    who: text('who').notNull(),
    role: text('role', { enum: ['viewer', 'operator', 'admin'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('orrery_sessions_expires').on(t.expiresAt)],
);
