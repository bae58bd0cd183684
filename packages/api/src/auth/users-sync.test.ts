import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessions, users } from '@orrery/db';
import { createHarness, type Harness } from '../testing/api-harness.ts';
import { hashPassword } from './password.ts';
import { createSession, lookupSession } from './sessions.ts';
import { syncUsers } from './users-sync.ts';
import type { UserLine } from './users-file.ts';

let h: Harness;
let hashA = '';
let hashB = '';
beforeAll(async () => {
  h = await createHarness();
  [hashA, hashB] = await Promise.all([hashPassword('password-a'), hashPassword('password-b')]);
}, 60_000);
afterAll(() => h.close());

const now = () => new Date();
const line = (name: string, role: UserLine['role'], passwordHash = hashA): UserLine => ({ name, role, passwordHash });
const session = async (who: string, role: UserLine['role']) => (await createSession(h.conn, who, role, 600_000, now())).id;
const table = async () => (await h.conn.db.select({ name: users.name, role: users.role }).from(users)).sort((a, b) => a.name.localeCompare(b.name));

describe('syncUsers (the users file is authoritative)', () => {
  it('adds the file users', async () => {
    const r = await syncUsers(h.conn, [line('vera', 'viewer'), line('otto', 'operator'), line('ada', 'admin')]);
    expect(r).toMatchObject({ added: ['vera', 'otto', 'ada'], removed: [], changed: [], sessionsEnded: 0 });
    expect(await table()).toEqual([{ name: 'ada', role: 'admin' }, { name: 'otto', role: 'operator' }, { name: 'vera', role: 'viewer' }]);
  });

  it('removing a user deletes it and ends its sessions; others keep theirs', async () => {
    const vera = await session('vera', 'viewer');
    const otto = await session('otto', 'operator');
    const token = await session('admin-token', 'admin');
    const r = await syncUsers(h.conn, [line('otto', 'operator'), line('ada', 'admin')]);
    expect(r).toMatchObject({ added: [], removed: ['vera'], changed: [], sessionsEnded: 1 });
    expect(await lookupSession(h.conn, vera, now())).toBeUndefined();
    expect(await lookupSession(h.conn, otto, now())).toMatchObject({ who: 'otto', role: 'operator' });
    expect(await lookupSession(h.conn, token, now())).toMatchObject({ who: 'admin-token', role: 'admin' });
  });

  it('a role change (down or up) or a new password ends the sessions of that user', async () => {
    const otto = await session('otto', 'operator');
    const ada = await session('ada', 'admin');
    const r = await syncUsers(h.conn, [line('otto', 'viewer'), line('ada', 'admin', hashB)]);
    expect(r).toMatchObject({ changed: ['otto', 'ada'], sessionsEnded: 3 }); // otto's session from the test before too
    expect(await lookupSession(h.conn, otto, now())).toBeUndefined();
    expect(await lookupSession(h.conn, ada, now())).toBeUndefined();
    expect(await table()).toEqual([{ name: 'ada', role: 'admin' }, { name: 'otto', role: 'viewer' }]);
  });

  it('sessions of names the file does not list, or with a role the file does not give, end too', async () => {
    const ghost = await session('ghost', 'admin');
    const stale = await session('otto', 'admin'); // otto is a viewer in the file
    const kept = await session('otto', 'viewer');
    const r = await syncUsers(h.conn, [line('otto', 'viewer'), line('ada', 'admin', hashB)]);
    expect(r).toMatchObject({ added: [], removed: [], changed: [], sessionsEnded: 2 });
    expect(await lookupSession(h.conn, ghost, now())).toBeUndefined();
    expect(await lookupSession(h.conn, stale, now())).toBeUndefined();
    expect(await lookupSession(h.conn, kept, now())).toMatchObject({ who: 'otto', role: 'viewer' });
  });

  it('an empty file removes every user and every user session, never the admin token sessions', async () => {
    const token = await session('admin-token', 'admin');
    const r = await syncUsers(h.conn, []);
    expect(r.removed.sort()).toEqual(['ada', 'otto']);
    expect(await table()).toEqual([]);
    expect((await h.conn.db.select({ who: sessions.who }).from(sessions)).every((s) => s.who === 'admin-token')).toBe(true);
    expect(await lookupSession(h.conn, token, now())).toBeDefined();
  });
});
