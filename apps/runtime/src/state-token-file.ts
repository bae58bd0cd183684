import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** As in Fission (`.fission-state-token`): claims travel with the token so statesvc can re-derive it. */
export const STATE_TOKEN_FILE = '.orrery-state-token';

export interface StateCredentials {
  namespace: string;
  keyspace: string;
  token: string;
}

/**
 * Writes `<dir>/.orrery-state-token` as JSON `{namespace, keyspace, token}`, mode 0444.
 * Written to a temporary name and renamed, so a reader (the SDK re-reads on 401 after a
 * key rotation) never sees a half-written file.
 */
export async function writeStateTokenFile(dir: string, creds: StateCredentials): Promise<string> {
  for (const k of ['namespace', 'keyspace', 'token'] as const) {
    if (typeof creds[k] !== 'string' || creds[k] === '') throw new TypeError(`state credentials need a non-empty ${k}`);
  }
  await mkdir(dir, { recursive: true });
  const path = join(dir, STATE_TOKEN_FILE);
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const body = JSON.stringify({ namespace: creds.namespace, keyspace: creds.keyspace, token: creds.token });
  await writeFile(tmp, body, { mode: 0o444 });
  await chmod(tmp, 0o444); // the umask may have removed bits
  await rename(tmp, path);
  return path;
}
