import { readFile } from 'node:fs/promises';
// Type only: the runtime's bundle stays free of zod and the resource schemas (cold starts).
import type { RegistryCredentialFile } from '@orrery/spec';
import { workerServiceName } from './worker-instance.ts';

/**
 * The worker's registration credential: what lets it register, renew and deregister its own
 * instances under `orrery.functions.<namespace>.<function>.<revision>` (docs/registry.md "Write
 * credentials"). It comes from the operator — locally in ORRERY_REGISTRY_CREDENTIAL, on
 * Kubernetes as the revision's mounted Secret (`--registry-credential-file`), for pool workers
 * in the specialize body — and is sent as `Authorization: Bearer <credential>`. Never logged.
 */
export class RegistryCredentialError extends Error {
  override name = 'RegistryCredentialError';
}

export interface CredentialScope {
  namespace: string;
  function: string;
  revision: string;
}

const HEX = /^[0-9a-f]{64}$/;

/**
 * Checks a credential given with claims (the file, the specialize body) against the revision the
 * worker serves: a credential for another revision would only fail later, on every heartbeat,
 * with a less helpful error. Returns the bare credential.
 */
function isCredentialFile(v: unknown): v is RegistryCredentialFile {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return typeof o.namespace === 'string' && typeof o.service === 'string' && typeof o.token === 'string' && HEX.test(o.token);
}

export function credentialFromClaims(claims: unknown, scope: CredentialScope, source: string): string {
  if (!isCredentialFile(claims)) throw new RegistryCredentialError(`${source} must be {namespace, service, token} with a 64-hex-digit token`);
  const service = workerServiceName(scope.namespace, scope.function, scope.revision);
  if (claims.namespace !== scope.namespace || claims.service !== service) {
    throw new RegistryCredentialError(`${source} is for ${claims.namespace}/${claims.service} but this worker serves ${scope.namespace}/${service}`);
  }
  return claims.token;
}

/** A credential from the environment: the bare 64-hex-digit value. */
export function credentialFromEnv(value: string): string {
  const v = value.trim();
  if (!HEX.test(v)) throw new RegistryCredentialError('ORRERY_REGISTRY_CREDENTIAL must be 64 lowercase hex digits (as the operator mints it)');
  return v;
}

/** Reads the mounted credential file (JSON claims as the operator renders them) for this revision. */
export async function readRegistryCredentialFile(path: string, scope: CredentialScope): Promise<string> {
  let text: string;
  try {
    text = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new RegistryCredentialError(
      code === 'ENOENT' ? `registry credential file ${path} does not exist (is the revision's registry Secret mounted?)` : `cannot read registry credential file ${path}: ${(err as Error).message}`,
    );
  }
  let claims: unknown;
  try {
    claims = JSON.parse(text);
  } catch {
    throw new RegistryCredentialError(`registry credential file ${path} is not JSON {namespace, service, token}`);
  }
  return credentialFromClaims(claims, scope, `registry credential file ${path}`);
}
