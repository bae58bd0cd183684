import { createHmac, timingSafeEqual } from 'node:crypto';
import { hkdf32 } from './hkdf-key.ts';

export const ADMIN_KEY_INFO = 'v1:statestore-admin';

/** Everything in the signed message except `signature=…`; order and encoding kept byte-exact. */
function unsignedTarget(pathAndQuery: string): { target: string; signature: string | undefined } {
  const q = pathAndQuery.indexOf('?');
  if (q < 0) return { target: pathAndQuery, signature: undefined };
  const path = pathAndQuery.slice(0, q);
  let signature: string | undefined;
  const kept: string[] = [];
  for (const part of pathAndQuery.slice(q + 1).split('&')) {
    if (part.startsWith('signature=')) signature = signature === undefined ? part.slice('signature='.length) : '\u0000duplicate';
    else if (part !== '') kept.push(part);
  }
  return { target: kept.length ? `${path}?${kept.join('&')}` : path, signature };
}

const mac = (masterKey: Buffer, method: string, target: string) =>
  createHmac('sha256', hkdf32(masterKey, ADMIN_KEY_INFO)).update(`${method.toUpperCase()}\n${target}`).digest();

/**
 * Appends `expires=<unix seconds>&signature=<hex>` to a path with query. The signature is
 * HMAC-SHA256(HKDF(master, "v1:statestore-admin"), METHOD + "\n" + path?query-without-signature).
 * Scope parameters ride in the query so the signature binds them.
 */
export function signAdminUrl(masterKey: Buffer, method: string, pathAndQuery: string, expiresAtSeconds: number): string {
  const withExpires = `${pathAndQuery}${pathAndQuery.includes('?') ? '&' : '?'}expires=${Math.floor(expiresAtSeconds)}`;
  return `${withExpires}&signature=${mac(masterKey, method, withExpires).toString('hex')}`;
}

/**
 * The signed path?query of statesvc's keyspace deletion (`DELETE /v1/admin/keyspace`), for the
 * operator's keyspace deletion policy `delete`. Prefix it with the statesvc base URL and send it
 * unchanged (the signature covers these exact bytes).
 */
export function signKeyspaceDeletionUrl(masterKey: Buffer, namespace: string, keyspace: string, expiresAtSeconds: number): string {
  const path = `/v1/admin/keyspace?scope-namespace=${encodeURIComponent(namespace)}&scope-keyspace=${encodeURIComponent(keyspace)}`;
  return signAdminUrl(masterKey, 'DELETE', path, expiresAtSeconds);
}

export type AdminUrlCheck = { ok: true } | { ok: false; reason: string };

/** Checks signature (any accepted master key, constant time) and expiry. */
export function verifyAdminUrl(masterKeys: readonly Buffer[], method: string, pathAndQuery: string, nowSeconds = Date.now() / 1000): AdminUrlCheck {
  const { target, signature } = unsignedTarget(pathAndQuery);
  if (!signature || !/^[0-9a-f]{64}$/.test(signature)) return { ok: false, reason: 'admin URL needs a signature=<hex> query parameter (see signAdminUrl)' };
  const expires = new URLSearchParams(target.slice(target.indexOf('?') + 1)).getAll('expires');
  if (expires.length !== 1 || !/^\d{1,12}$/.test(expires[0]!)) return { ok: false, reason: 'admin URL needs exactly one expires=<unix seconds> query parameter' };
  const presented = Buffer.from(signature, 'hex');
  let ok = false;
  for (const key of masterKeys) if (timingSafeEqual(presented, mac(key, method, target))) ok = true;
  if (!ok) return { ok: false, reason: 'admin URL signature does not match' };
  if (Number(expires[0]) < nowSeconds) return { ok: false, reason: 'admin URL has expired; sign a new one' };
  return { ok: true };
}
