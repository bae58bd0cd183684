/**
 * The local platform's Secrets (`orrery secret`): one file per key under
 * `<data-dir>/secrets/<namespace>/<name>/<key>` (the layout in @orrery/spec local-secrets.ts,
 * which the operator reads when a worker starts). Folders 0700, files 0600, each write to a
 * temporary name and renamed, so the operator never reads half a value.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { localSecretPathSegments } from '@orrery/spec';

export interface SecretName {
  namespace: string;
  name: string;
}

/** `NS/NAME` or `NAME` (namespace `defaultNamespace`). */
export function parseSecretName(text: string, defaultNamespace = 'default'): SecretName {
  const parts = text.split('/');
  if (parts.length > 2 || parts.some((p) => p === '')) throw new TypeError(`"${text}" is not NAMESPACE/NAME or NAME`);
  const ref = parts.length === 2 ? { namespace: parts[0]!, name: parts[1]! } : { namespace: defaultNamespace, name: parts[0]! };
  localSecretPathSegments(ref); // throws on a bad namespace or name
  return ref;
}

function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}

export function setLocalSecret(dataDir: string, s: SecretName, key: string, value: Buffer | string): string {
  const segments = localSecretPathSegments({ ...s, key });
  // Every level private: the secrets folder holds the platform's own keys too.
  for (let i = 1; i < segments.length; i++) ensurePrivateDir(join(dataDir, ...segments.slice(0, i)));
  const file = join(dataDir, ...segments);
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, value, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return file;
}

/** Keys of one secret (never values), sorted; empty when the secret does not exist. */
export function listLocalSecretKeys(dataDir: string, s: SecretName): string[] {
  const dir = join(dataDir, ...localSecretPathSegments(s));
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((k) => !k.includes('.tmp-')).sort();
}

/** Secret names of a namespace, sorted. */
export function listLocalSecrets(dataDir: string, namespace: string): string[] {
  const dir = join(dataDir, ...localSecretPathSegments({ namespace, name: 'x' }).slice(0, 2));
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
}

/** Removes one key, or the whole secret without a key. True when something was removed. */
export function deleteLocalSecret(dataDir: string, s: SecretName, key?: string): boolean {
  const path = join(dataDir, ...localSecretPathSegments({ ...s, key }));
  if (!existsSync(path)) return false;
  rmSync(path, { recursive: true, force: true });
  return true;
}
