import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseUsersFile, verifyPassword } from '@orrery/api';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');
const passwd = (args: string[], input: string) => spawnSync(process.execPath, [CLI, 'passwd', ...args], { input, encoding: 'utf8' });

describe('orrery passwd', () => {
  it('prints a users-file line whose hash verifies the password from stdin', { timeout: 30_000 }, async () => {
    const r = passwd(['vera', 'viewer'], 'a long passphrase\n');
    expect(r.status, r.stderr).toBe(0);
    const { users, problems } = parseUsersFile(r.stdout);
    expect(problems).toEqual([]);
    expect(users[0]).toMatchObject({ name: 'vera', role: 'viewer' });
    expect(r.stdout).not.toContain('passphrase');
    expect(await verifyPassword('a long passphrase', users[0]!.passwordHash)).toBe(true);
  });
  it('refuses short passwords and unknown roles with exit 2', { timeout: 30_000 }, () => {
    expect(passwd(['vera', 'viewer'], 'short').stderr).toMatch(/at least 8 characters/);
    const bad = passwd(['vera', 'root'], 'a long passphrase');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/role must be one of viewer, operator, admin/);
  });
});
