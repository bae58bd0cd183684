import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './password.ts';
import { parseUsersFile } from './users-file.ts';

describe('parseUsersFile', () => {
  it('reads name:role:hash lines, skipping comments and blanks', async () => {
    const hash = await hashPassword('viewer-password');
    const { users, problems } = parseUsersFile(`# console users\n\nvera:viewer:${hash}\n  otto:operator:${hash}  \n`);
    expect(problems).toEqual([]);
    expect(users.map((u) => [u.name, u.role])).toEqual([['vera', 'viewer'], ['otto', 'operator']]);
    expect(await verifyPassword('viewer-password', users[0]!.passwordHash)).toBe(true);
  });
  it('reports every bad line by number and never accepts a plain password', () => {
    const { users, problems } = parseUsersFile('bad name:viewer:x\nvera:root:scrypt$1$1$1$aa$bb\nvera:viewer:hunter2\nok:admin:scrypt$16384$8$1$aa$bb\nok:viewer:scrypt$16384$8$1$aa$bb');
    expect(users.map((u) => u.name)).toEqual(['ok']);
    expect(problems).toEqual([
      'line 1: user name must be 1-64 letters, digits or . _ @ -',
      'line 2: role must be one of viewer, operator, admin',
      'line 3: the third field must be a scrypt hash from `orrery passwd`, never a password',
      'line 5: user ok is listed twice',
    ]);
  });
});

describe('reserved names', () => {
  it('admin-token names the admin token sessions: no user may take it', () => {
    const { users, problems } = parseUsersFile('admin-token:viewer:scrypt$16384$8$1$aa$bb');
    expect(users).toEqual([]);
    expect(problems).toEqual(['line 1: admin-token is reserved (it names sessions made with the admin token)']);
  });
});
