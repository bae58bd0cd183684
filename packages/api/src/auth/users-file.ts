import { readFileSync } from 'node:fs';
import { ROLES, type Role } from '../context.ts';
import { ADMIN_TOKEN_WHO, USER_NAME } from './user-name.ts';

export interface UserLine {
  name: string;
  role: Role;
  /** `scrypt$N$r$p$salt$hash`, as `orrery passwd` prints it: the file never holds a password. */
  passwordHash: string;
}

const HASH = /^scrypt\$\d+\$\d+\$\d+\$[0-9a-f]+\$[0-9a-f]+$/;

/**
 * The users file (htpasswd-like): one `name:role:scrypt-hash` per line, `#` comments. Every bad
 * line is reported with its number, so a typo never silently locks someone out or in.
 */
export function parseUsersFile(text: string): { users: UserLine[]; problems: string[] } {
  const users: UserLine[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [name = '', role = '', ...rest] = line.split(':');
    const passwordHash = rest.join(':');
    const at = `line ${i + 1}`;
    if (!USER_NAME.test(name)) problems.push(`${at}: user name must be 1-64 letters, digits or . _ @ -`);
    else if (name === ADMIN_TOKEN_WHO) problems.push(`${at}: ${ADMIN_TOKEN_WHO} is reserved (it names sessions made with the admin token)`);
    else if (!(ROLES as readonly string[]).includes(role)) problems.push(`${at}: role must be one of ${ROLES.join(', ')}`);
    else if (!HASH.test(passwordHash)) problems.push(`${at}: the third field must be a scrypt hash from \`orrery passwd\`, never a password`);
    else if (seen.has(name)) problems.push(`${at}: user ${name} is listed twice`);
    else {
      seen.add(name);
      users.push({ name, role: role as Role, passwordHash });
    }
  }
  return { users, problems };
}

export function readUsersFile(path: string): UserLine[] {
  const { users, problems } = parseUsersFile(readFileSync(path, 'utf8'));
  if (problems.length) throw new Error(`users file ${path}: ${problems.join('; ')}`);
  return users;
}
