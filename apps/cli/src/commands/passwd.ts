import { hashPassword, parseUsersFile, ROLES } from '@orrery/api';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'print a users-file line (name:role:scrypt-hash) for console / admin API logins';

const HELP = `usage: orrery passwd NAME ROLE < password

Reads the password from stdin (one line; at least 8 characters) and prints
\`NAME:ROLE:scrypt$…\` for the users file (orrery up --users-file FILE, or the operator's
--users-file). Roles: ${ROLES.join(', ')}. The file holds hashes only, never passwords.

  echo -n 'a long passphrase' | npx orrery passwd vera viewer >> users.txt`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** The flags, exported for `orrery completion`. */
export const options = { help: { type: 'boolean', short: 'h' } } as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('passwd', HELP, argv, { options, allowPositionals: true });
  if (typeof parsed === 'number') return parsed;
  const { positionals } = parsed;
  const [name, role] = positionals;
  if (!name || !role || positionals.length !== 2) {
    console.error(`orrery passwd: give NAME and ROLE\n\n${HELP}`);
    return 2;
  }
  const password = await readStdin();
  if (password.length < 8) {
    console.error('orrery passwd: the password (stdin) needs at least 8 characters');
    return 2;
  }
  const line = `${name}:${role}:${await hashPassword(password)}`;
  // The same parser the operator uses: a name or role it would refuse is refused here.
  const { problems } = parseUsersFile(line);
  if (problems.length) {
    console.error(`orrery passwd: ${problems[0]!.replace(/^line 1: /, '')}`);
    return 2;
  }
  console.log(line);
  return 0;
}
