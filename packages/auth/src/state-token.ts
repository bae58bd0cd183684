import { timingSafeEqual } from 'node:crypto';
import { hkdf32 } from './hkdf-key.ts';

export const DEFAULT_KEY_VERSION = 'v1';

/** The HKDF info string. ':' never occurs in a namespace or keyspace, so scopes cannot collide. */
export const stateTokenInfo = (namespace: string, keyspace: string, keyVersion = DEFAULT_KEY_VERSION) =>
  `${keyVersion}:statestore:${namespace}:${keyspace}`;

/** The scoped bearer token a worker uses for one keyspace: hex(HKDF(master, info)). */
export function deriveStateToken(masterKey: Buffer, namespace: string, keyspace: string, keyVersion = DEFAULT_KEY_VERSION): string {
  return hkdf32(masterKey, stateTokenInfo(namespace, keyspace, keyVersion)).toString('hex');
}

const HEX_TOKEN = /^[0-9a-f]{64}$/;

/**
 * What a stateful worker gets instead of a token when the operator has no master key (local
 * development, statesvc with --insecure-pass-through): the same token file and headers, so the
 * SDKs and `ctx.state` work unchanged (RFC-0023). Not hex: no statesvc with a key accepts it.
 */
export const STATE_PLACEHOLDER_TOKEN = 'orrery-dev-placeholder-token-no-master-key';

/**
 * Stateless check: re-derive for the claimed scope under each accepted master key (current,
 * then the previous one during a rotation) and compare in constant time. No token store.
 */
export function verifyStateToken(
  token: string,
  namespace: string,
  keyspace: string,
  masterKeys: readonly Buffer[],
  keyVersion = DEFAULT_KEY_VERSION,
): boolean {
  if (!HEX_TOKEN.test(token)) return false;
  const presented = Buffer.from(token, 'hex');
  let ok = false;
  // Every key is tried (no early exit), so timing does not reveal which key matched.
  for (const key of masterKeys) {
    if (timingSafeEqual(presented, hkdf32(key, stateTokenInfo(namespace, keyspace, keyVersion)))) ok = true;
  }
  return ok;
}

/**
 * statesvc's verifier: the same check, with the derivation cached per (key, scope) so a hot
 * keyspace costs one HMAC-free comparison per request. Bounded: the cache is dropped when full.
 */
export class StateTokenVerifier {
  private readonly cache = new Map<string, Buffer[]>();

  constructor(
    private readonly masterKeys: readonly Buffer[],
    private readonly keyVersion = DEFAULT_KEY_VERSION,
    private readonly maxEntries = 50_000,
  ) {}

  verify(token: string, namespace: string, keyspace: string): boolean {
    if (!HEX_TOKEN.test(token)) return false;
    const id = `${namespace}\u0000${keyspace}`;
    let expected = this.cache.get(id);
    if (!expected) {
      expected = this.masterKeys.map((k) => hkdf32(k, stateTokenInfo(namespace, keyspace, this.keyVersion)));
      if (this.cache.size >= this.maxEntries) this.cache.clear();
      this.cache.set(id, expected);
    }
    const presented = Buffer.from(token, 'hex');
    let ok = false;
    for (const e of expected) if (timingSafeEqual(presented, e)) ok = true;
    return ok;
  }
}
