/**
 * The registry API's tokens for one cluster, generated once and kept in `<clusterDir>/secrets.json`
 * with mode 0600. The local backend has no secret store, so spec `*TokenSecretRef`s are not
 * resolved here (the Kubernetes backend mounts them). Tokens are never logged.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RegistryTokens {
  adminToken: string;
  replicationToken: string;
  prometheusSdToken: string;
}

export function loadOrCreateTokens(clusterDir: string): RegistryTokens {
  const file = join(clusterDir, 'secrets.json');
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    return JSON.parse(readFileSync(file, 'utf8')) as RegistryTokens;
  }
  const token = () => randomBytes(24).toString('base64url');
  const tokens = { adminToken: token(), replicationToken: token(), prometheusSdToken: token() };
  writeFileSync(file, JSON.stringify(tokens), { mode: 0o600 });
  return tokens;
}
