import { and, eq, inArray, ne, notInArray } from 'drizzle-orm';
import { sessions, users, type Connection } from '@orrery/db';
import { ADMIN_TOKEN_WHO } from './user-name.ts';
import type { UserLine } from './users-file.ts';

export interface UsersSyncResult {
  added: string[];
  removed: string[];
  /** Users whose role or password changed. */
  changed: string[];
  /** Sessions ended: of removed users, of changed users, and of names the file does not list. */
  sessionsEnded: number;
}

/**
 * Makes the users table exactly the users file (the file is authoritative): users not in it are
 * deleted, the others written, and every session that no longer matches a line — its user
 * removed, its role or password changed — is ended. Sessions made with the admin token are
 * kept. Runs at start and whenever the file changes (users-file-source in the operator).
 */
export async function syncUsers(conn: Connection, lines: readonly UserLine[]): Promise<UsersSyncResult> {
  return conn.db.transaction(async (tx) => {
    const stored = await tx.select({ name: users.name, role: users.role, passwordHash: users.passwordHash }).from(users);
    const byName = new Map(stored.map((u) => [u.name, u]));
    const names = lines.map((l) => l.name);
    const added: string[] = [];
    const changed: string[] = [];
    for (const l of lines) {
      const prev = byName.get(l.name);
      if (!prev) added.push(l.name);
      else if (prev.role !== l.role || prev.passwordHash !== l.passwordHash) changed.push(l.name);
      else continue;
      await tx.insert(users).values({ name: l.name, role: l.role, passwordHash: l.passwordHash }).onConflictDoUpdate({ target: users.name, set: { role: l.role, passwordHash: l.passwordHash } });
    }
    const removed = stored.map((u) => u.name).filter((n) => !names.includes(n));
    if (removed.length) await tx.delete(users).where(inArray(users.name, removed));
    let ended = 0;
    // Sessions of names the file does not list (removed users, or made for anyone else).
    const orphan = names.length ? and(ne(sessions.who, ADMIN_TOKEN_WHO), notInArray(sessions.who, names)) : ne(sessions.who, ADMIN_TOKEN_WHO);
    ended += (await tx.delete(sessions).where(orphan).returning({ id: sessions.idHash })).length;
    // Sessions whose role is not the file's (any role change ends them), and of changed passwords.
    for (const l of lines) {
      const stale = changed.includes(l.name) ? eq(sessions.who, l.name) : and(eq(sessions.who, l.name), ne(sessions.role, l.role));
      ended += (await tx.delete(sessions).where(stale).returning({ id: sessions.idHash })).length;
    }
    return { added, removed, changed, sessionsEnded: ended };
  });
}
