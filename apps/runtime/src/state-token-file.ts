import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
// The subpath, not the barrel: the barrel's zod schemas would cost every worker's start (docs/performance.md "coldstart").
import { STATE_TOKEN_FILE, stateTokenFileBody, type StateTokenClaims } from '@orrery/spec/state-credentials';

export { STATE_TOKEN_FILE };
/** The runtime's name for the token file's claims (url and fencing travel as flags). */
export type StateCredentials = StateTokenClaims;

/**
 * Writes `<dir>/.orrery-state-token` as JSON `{namespace, keyspace, token}`, mode 0444.
 * Written to a temporary name and renamed, so a reader (the SDK re-reads on 401 after a
 * key rotation) never sees a half-written file.
 */
export async function writeStateTokenFile(dir: string, creds: StateCredentials): Promise<string> {
  for (const k of ['namespace', 'keyspace', 'token'] as const) {
    if (typeof creds[k] !== 'string' || creds[k] === '') throw new TypeError(`state credentials need a non-empty ${k}`);
  }
  // Synchronous on purpose, as the module file's write (load/function-source.ts): this is on a
  // stateful function's cold start, where the worker serves nothing else yet, and the async calls
  // were four thread-pool round trips (mkdir, write, chmod, rename) of a ~100-byte file.
  mkdirSync(dir, { recursive: true });
  const path = join(dir, STATE_TOKEN_FILE);
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, stateTokenFileBody(creds), { mode: 0o444 });
  chmodSync(tmp, 0o444); // the umask may have removed bits
  renameSync(tmp, path);
  return path;
}

export class StateTokenFileError extends Error {
  override name = 'StateTokenFileError';
}

/**
 * Reads the state token a deploy worker is given as a file (`--state-token-file`, on Kubernetes
 * the revision's mounted Secret): the JSON this module writes, or a bare token. The claims in a
 * JSON file must match the worker's flags: a token for another keyspace would only fail later,
 * on the first state call, with a less helpful error.
 */
export async function readStateTokenFile(path: string, expected: { namespace: string; keyspace: string }): Promise<string> {
  let text: string;
  try {
    text = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StateTokenFileError(
      code === 'ENOENT' ? `state token file ${path} does not exist (is the state Secret mounted?)` : `cannot read state token file ${path}: ${(err as Error).message}`,
    );
  }
  if (text === '') throw new StateTokenFileError(`state token file ${path} is empty`);
  if (!text.startsWith('{')) return text;
  let claims: Partial<StateCredentials>;
  try {
    claims = JSON.parse(text) as Partial<StateCredentials>;
  } catch {
    throw new StateTokenFileError(`state token file ${path} starts with "{" but is not valid JSON`);
  }
  if (typeof claims.token !== 'string' || claims.token === '') throw new StateTokenFileError(`state token file ${path} has no "token"`);
  if (claims.keyspace !== undefined && claims.keyspace !== expected.keyspace) {
    throw new StateTokenFileError(`state token file ${path} is for keyspace "${claims.keyspace}" but --state-keyspace is "${expected.keyspace}"`);
  }
  if (claims.namespace !== undefined && claims.namespace !== expected.namespace) {
    throw new StateTokenFileError(`state token file ${path} is for namespace "${claims.namespace}" but --namespace is "${expected.namespace}"`);
  }
  return claims.token;
}
