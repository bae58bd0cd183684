import { RegistrationCredentialVerifier } from '@orrery/auth';
import { RESERVED_SERVICE_PREFIX } from '@orrery/spec';
import { isReservedService } from './reserved-service.ts';
import { describeScope, scopeCovers, WriteTokenSet, type WriteToken } from './write-scope.ts';

export type WriteAction = 'register' | 'heartbeat' | 'deregister';

export type WriteDecision =
  | { ok: true; by: 'registration-credential' | 'write-token' | 'open'; tokenName?: string }
  | { ok: false; code: 'credential_required' | 'credential_rejected'; message: string };

export interface WritePolicyOptions {
  /** Registry master keys: the current one first, then the previous one during a rotation. */
  masterKeys: readonly Buffer[];
  writeTokens: readonly WriteToken[];
  /** Refuse writes outside the reserved prefix without a write token, even when none is configured. */
  requireWriteTokens: boolean;
}

/**
 * Who may write what (register, heartbeat, deregister), decided from the bearer credential the
 * writer presented and the instance's namespace and service — nothing else:
 *
 * - `orrery.functions.…` (reserved): always the registration credential for exactly this
 *   namespace and service (HKDF of the registry master key). Without a master key the registry
 *   refuses every reserved write. Write tokens never cover it.
 * - anything else: a write token whose scope covers the namespace and service when write tokens
 *   are on (some configured, or `requireWriteTokens`); otherwise open, as in the seed. A
 *   credential that is sent must be valid even then (so a mistyped token is noticed).
 */
export class WritePolicy {
  private readonly credentials: RegistrationCredentialVerifier;
  private readonly tokens: WriteTokenSet;

  constructor(private readonly o: WritePolicyOptions) {
    this.credentials = new RegistrationCredentialVerifier(o.masterKeys);
    this.tokens = new WriteTokenSet(o.writeTokens);
  }

  /** Writes outside the reserved prefix need no credential: the seed's open registration. */
  get openRegistration(): boolean {
    return !this.o.requireWriteTokens && this.tokens.size === 0;
  }

  /** Reserved writes are possible at all (a registry master key is configured). */
  get reservedWritesEnabled(): boolean {
    return !this.credentials.disabled;
  }

  authorize(credential: string | undefined, namespace: string, service: string, action: WriteAction): WriteDecision {
    const target = `namespace "${namespace}" service "${service}"`;
    if (isReservedService(service)) {
      if (this.credentials.disabled) {
        return {
          ok: false,
          code: credential === undefined ? 'credential_required' : 'credential_rejected',
          message: `services under ${RESERVED_SERVICE_PREFIX}. belong to Orrery's workers, and this registry has no registry master key (registry_master_key_file, --registry-master-key-file), so it refuses every ${action} there; configure the key the operator mints registration credentials from`,
        };
      }
      if (credential === undefined) {
        return {
          ok: false,
          code: 'credential_required',
          message: `services under ${RESERVED_SERVICE_PREFIX}. belong to Orrery's workers: a ${action} of ${target} needs the revision's registration credential as Authorization: Bearer <credential> (the operator gives it to the revision's workers)`,
        };
      }
      if (this.credentials.verify(credential, namespace, service)) return { ok: true, by: 'registration-credential' };
      return {
        ok: false,
        code: 'credential_rejected',
        message: `the credential does not cover ${target}: a registration credential covers only its own revision's service (${RESERVED_SERVICE_PREFIX}.<namespace>.<function>.<revision>) in its own namespace, and write tokens never cover ${RESERVED_SERVICE_PREFIX}.`,
      };
    }
    if (credential === undefined) {
      if (this.openRegistration) return { ok: true, by: 'open' };
      return {
        ok: false,
        code: 'credential_required',
        message: `write tokens are on: a ${action} of ${target} needs Authorization: Bearer <write token> with a scope covering that namespace and service (ask the registry's operator for one)`,
      };
    }
    const token = this.tokens.find(credential);
    if (!token) {
      return {
        ok: false,
        code: 'credential_rejected',
        message: `the bearer credential is not a write token this registry knows (${this.tokens.size === 0 ? 'none is configured; send no Authorization header to register here' : 'check the token'})`,
      };
    }
    if (scopeCovers(token, namespace, service)) return { ok: true, by: 'write-token', tokenName: token.name };
    return {
      ok: false,
      code: 'credential_rejected',
      message: `write token "${token.name}" does not cover ${target}: its scope is ${describeScope(token)}; use a token for that namespace and service prefix`,
    };
  }
}
