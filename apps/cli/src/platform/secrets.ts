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
}

function ensureSecret(dir: string, name: string, bytes: number): { file: string; value: string } {
  const file = join(dir, name);
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(bytes).toString('hex')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { file, value: readFileSync(file, 'utf8').trim() };
}

export function ensureSecrets(dataDir: string): PlatformSecrets {
  const dir = join(dataDir, 'secrets');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const master = ensureSecret(dir, 'master.key', 32);
  const admin = ensureSecret(dir, 'admin.token', 24);
  return {
    masterKeyFile: master.file,
    adminToken: admin.value,
    adminTokenFile: admin.file,
    replicationToken: ensureSecret(dir, 'registry-replication.token', 24).value,
    prometheusSdToken: ensureSecret(dir, 'registry-prometheus-sd.token', 24).value,
  };
}
