import { timingSafeEqual } from 'node:crypto';
import { hkdf32 } from './hkdf-key.ts';
import { DEFAULT_KEY_VERSION } from './state-token.ts';

/**
 * Registration credentials: what lets a worker write its own instances under the registry's
 * reserved prefix `orrery.functions.`. Derived like the state token — HKDF-SHA256 of the
 * *registry* master key (a key of its own, not the state master key) — over
 * `<keyVersion>:registry:<namespace>:<service prefix>`.
 *
 * Orrery binds the prefix to one revision's whole service name,
 * `orrery.functions.<namespace>.<function>.<revision>` (five segments, so "under the prefix" is
 * "equal to it"): a worker can register, renew and remove instances of its own revision in its
 * own namespace and nothing else. ':' occurs in neither a namespace nor a service name, so two
 * scopes never share an info string.
 */
export const registrationCredentialInfo = (namespace: string, servicePrefix: string, keyVersion = DEFAULT_KEY_VERSION) =>
  `${keyVersion}:registry:${namespace}:${servicePrefix}`;

/** hex(HKDF(registry master key, info)): 64 lowercase hex digits. */
export function deriveRegistrationCredential(masterKey: Buffer, namespace: string, servicePrefix: string, keyVersion = DEFAULT_KEY_VERSION): string {
  return hkdf32(masterKey, registrationCredentialInfo(namespace, servicePrefix, keyVersion)).toString('hex');
}

const HEX_CREDENTIAL = /^[0-9a-f]{64}$/;

/**
 * The registry's check: re-derive for the claimed scope under every accepted master key (the
 * current one, then the previous one during a rotation), compare in constant time, no early exit.
 * Derivations are cached per scope (heartbeats repeat every few seconds); the cache is dropped
 * when full, so it stays bounded whatever callers claim.
 */
export class RegistrationCredentialVerifier {
  private readonly cache = new Map<string, Buffer[]>();

  constructor(
    private readonly masterKeys: readonly Buffer[],
    private readonly keyVersion = DEFAULT_KEY_VERSION,
    private readonly maxEntries = 50_000,
  ) {}

  /** True when no master key is configured: nothing can verify, every credential is refused. */
  get disabled(): boolean {
    return this.masterKeys.length === 0;
  }

  verify(credential: string, namespace: string, servicePrefix: string): boolean {
    if (!HEX_CREDENTIAL.test(credential) || this.masterKeys.length === 0) return false;
    const id = `${namespace}\u0000${servicePrefix}`;
    let expected = this.cache.get(id);
    if (!expected) {
      expected = this.masterKeys.map((k) => hkdf32(k, registrationCredentialInfo(namespace, servicePrefix, this.keyVersion)));
      if (this.cache.size >= this.maxEntries) this.cache.clear();
      this.cache.set(id, expected);
    }
    const presented = Buffer.from(credential, 'hex');
    let ok = false;
    for (const e of expected) if (timingSafeEqual(presented, e)) ok = true;
    return ok;
  }
}
