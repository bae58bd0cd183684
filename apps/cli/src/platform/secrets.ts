/**
 * Secrets of the local platform live in `<data-dir>/secrets/` (mode 0700, files 0600) and are
 * generated once, so a restart keeps the same state tokens and admin token.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PlatformSecrets {
  masterKeyFile: string;
  adminToken: string;
  adminTokenFile: string;
  replicationToken: string;
  prometheusSdToken: string;
  /** The registry master key: workers' registration credentials under orrery.functions. derive from it. */
  registryMasterKeyFile: string;
  /** A write token for every other service in the local registry (write tokens are on). */
  registryWriteTokenFile: string;
  /** The registry's write tokens file (`[[write_tokens]]`, naming the token file: no secret inside). */
  registryWriteTokensFile: string;
  /** The store API's bearer token: the operator checks it; statesvc, the routers and the CLI present it. */
  storeTokenFile: string;
}

function ensureSecret(dir: string, name: string, bytes: number): { file: string; value: string } {
  const file = join(dir, name);
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(bytes).toString('hex')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { file, value: readFileSync(file, 'utf8').trim() };
}

/** The local registry's write tokens: one token for any namespace and service (outside orrery.functions.). */
export function writeTokensToml(tokenFile: string): string {
  return [
    '# Write tokens of the local registry (docs/registry.md "Write credentials"), written by `orrery up`.',
    '[[write_tokens]]',
    'name = "local"',
    `token_file = ${JSON.stringify(tokenFile)}`,
    'namespaces = ["*"]',
    'service_prefixes = ["*"]',
    '',
  ].join('\n');
}

export function ensureSecrets(dataDir: string): PlatformSecrets {
  const dir = join(dataDir, 'secrets');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const master = ensureSecret(dir, 'master.key', 32);
  const admin = ensureSecret(dir, 'admin.token', 24);
  const writeToken = ensureSecret(dir, 'registry-write.token', 24);
  // Rewritten every time (it names the token file, whose path moves with the data dir).
  const tokensFile = join(dir, 'registry-write-tokens.toml');
  writeFileSync(tokensFile, writeTokensToml(writeToken.file), { mode: 0o600 });
  chmodSync(tokensFile, 0o600);
  return {
    masterKeyFile: master.file,
    adminToken: admin.value,
    adminTokenFile: admin.file,
    replicationToken: ensureSecret(dir, 'registry-replication.token', 24).value,
    prometheusSdToken: ensureSecret(dir, 'registry-prometheus-sd.token', 24).value,
    registryMasterKeyFile: ensureSecret(dir, 'registry-master.key', 32).file,
    registryWriteTokenFile: writeToken.file,
    registryWriteTokensFile: tokensFile,
    storeTokenFile: ensureSecret(dir, 'store.token', 24).file,
  };
}
