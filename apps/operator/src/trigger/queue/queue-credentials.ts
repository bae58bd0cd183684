/**
 * The broker credentials of `--queue-credentials-file` (never on a command line, in a URL or a
 * log): a NATS `.creds` file (user JWT and NKey seed, as `nsc` writes it), or lines
 * `user=NAME` and `password=SECRET`, or one line `token=SECRET`. Pure; an error names the
 * problem, never a value of the file.
 */
export type QueueCredentials = { kind: 'creds'; creds: string } | { kind: 'user'; user: string; pass: string } | { kind: 'token'; token: string };

const JWT_BEGIN = '-----BEGIN NATS USER JWT-----';
const KEYS = new Set(['user', 'password', 'token']);

export function parseQueueCredentials(text: string): QueueCredentials {
  if (text.includes(JWT_BEGIN)) {
    if (!text.includes('-----BEGIN USER NKEY SEED-----')) throw new Error('the credentials file has a user JWT but no "-----BEGIN USER NKEY SEED-----" block: use the whole .creds file nsc wrote');
    return { kind: 'creds', creds: text };
  }
  const values = new Map<string, string>();
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    const key = eq > 0 ? line.slice(0, eq).trim() : '';
    if (!KEYS.has(key)) throw new Error(`line ${i + 1} of the credentials file is not user=…, password=… or token=… (nor is the file a NATS .creds file)`);
    if (values.has(key)) throw new Error(`the credentials file sets ${key} twice`);
    const value = line.slice(eq + 1).trim();
    if (value === '') throw new Error(`the credentials file sets an empty ${key}`);
    values.set(key, value);
  }
  const token = values.get('token');
  const user = values.get('user');
  const pass = values.get('password');
  if (token !== undefined) {
    if (user !== undefined || pass !== undefined) throw new Error('the credentials file sets token and user/password: give one or the other');
    return { kind: 'token', token };
  }
  if (user !== undefined && pass !== undefined) return { kind: 'user', user, pass };
  throw new Error('the credentials file needs user= and password= lines, or a token= line, or to be a NATS .creds file');
}

/** The secret strings in credentials (for the log redaction list). */
export function credentialSecrets(c: QueueCredentials): string[] {
  switch (c.kind) {
    case 'creds':
      return [...c.creds.matchAll(/-----BEGIN [A-Z ]+-----\s*([^-\s]+)\s*------END/g)].map((m) => m[1]!);
    case 'user':
      return [c.pass];
    case 'token':
      return [c.token];
  }
}
