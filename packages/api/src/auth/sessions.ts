import { createHash } from 'node:crypto';
import { and, eq, gt, lt } from 'drizzle-orm';
import { sessions, users, type Connection } from '@orrery/db';
import type { Principal, Role } from '../context.ts';
import { ADMIN_TOKEN_WHO, USER_NAME } from './user-name.ts';
import { hashPassword } from './password.ts';
import { newSessionId } from './session-id.ts';

/** Only the SHA-256 of a session id is stored: a leaked table row is not a live session. */
export const hashSessionId = (id: string): string => createHash('sha256').update(id).digest('hex');

export async function createSession(conn: Connection, who: string, role: Role, ttlMs: number, now: Date): Promise<{ id: string; expiresAt: Date }> {
  const id = newSessionId();
  const expiresAt = new Date(now.getTime() + ttlMs);
  await conn.db.insert(sessions).values({ idHash: hashSessionId(id), who, role, expiresAt });
  // Expired rows are useless; sweeping at login keeps the table small without a timer.
  await conn.db.delete(sessions).where(lt(sessions.expiresAt, now));
  return { id, expiresAt };
}

export async function lookupSession(conn: Connection, id: string, now: Date): Promise<Principal | undefined> {
  const rows = await conn.db
    .select({ who: sessions.who, role: sessions.role })
    .from(sessions)
    .where(and(eq(sessions.idHash, hashSessionId(id)), gt(sessions.expiresAt, now)))
    .limit(1);
  const row = rows[0];
  return row ? { who: row.who, role: row.role, via: 'session' } : undefined;
}

export async function deleteSession(conn: Connection, id: string): Promise<void> {
  await conn.db.delete(sessions).where(eq(sessions.idHash, hashSessionId(id)));
}

/** Creates or replaces a console user (bootstrap, CLI); the password is stored as scrypt. */
/** Creates or updates a user from an already computed hash (the users file). */
export async function upsertUserHash(conn: Connection, name: string, role: Role, passwordHash: string): Promise<void> {
  await conn.db.insert(users).values({ name, role, passwordHash }).onConflictDoUpdate({ target: users.name, set: { role, passwordHash } });
}

export async function upsertUser(conn: Connection, name: string, role: Role, password: string): Promise<void> {
  if (!USER_NAME.test(name)) throw new Error('user names are 1-64 characters of letters, digits and . _ @ -');
  if (name === ADMIN_TOKEN_WHO) throw new Error(`${ADMIN_TOKEN_WHO} is reserved for sessions made with the admin token`);
  if (password.length < 8) throw new Error('passwords need at least 8 characters');
  const passwordHash = await hashPassword(password);
  await conn.db.insert(users).values({ name, role, passwordHash }).onConflictDoUpdate({ target: users.name, set: { role, passwordHash } });
}
