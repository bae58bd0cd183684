import { deriveRegistrationCredential } from '@orrery/auth';
import { RESERVED_SERVICE_PREFIX, type RegistryCredentialFile, type Revision } from '@orrery/spec';

/** The registry service a revision's workers register as: `orrery.functions.<namespace>.<function>.<revision>`. */
export function revisionServiceName(rev: Revision): string {
  return `${RESERVED_SERVICE_PREFIX}.${rev.metadata.namespace}.${rev.spec.function}.${rev.metadata.name}`;
}

/** Mints a revision's registration credential (undefined when the operator has no registry master key). */
export type RegistrationCredentials = (rev: Revision) => RegistryCredentialFile | undefined;

/**
 * The registration credential a revision's workers get (docs/registry.md "Write credentials"):
 * HKDF of the registry master key over `v1:registry:<namespace>:<service>`, bound to this one
 * revision's service, with its claims. Workers present it on every register, heartbeat and
 * deregister; the registry accepts it for that namespace and service only.
 */
export function registrationCredentials(registryMasterKey: Buffer | undefined): RegistrationCredentials {
  return (rev) => {
    if (!registryMasterKey) return undefined;
    const service = revisionServiceName(rev);
    return { namespace: rev.metadata.namespace, service, token: deriveRegistrationCredential(registryMasterKey, rev.metadata.namespace, service) };
  };
}
