import { RESERVED_SERVICE_PREFIX } from '@orrery/spec';
import type { RegistryConfig } from '../config.ts';

/**
 * What orrery-registry says on stderr at start-up about its write credentials: the open
 * registration a seed-style config keeps (no write tokens), and a registry that cannot accept
 * Orrery's workers (no registry master key). Never a secret.
 */
export function startupWarnings(c: Pick<RegistryConfig, 'registryMasterKeys' | 'writeTokens' | 'requireWriteTokens'>): string[] {
  const out: string[] = [];
  if (c.writeTokens.length === 0 && !c.requireWriteTokens) {
    out.push(
      `WARNING: open registration: no write token is configured, so anyone who reaches the public port can register, renew and deregister instances of services outside ${RESERVED_SERVICE_PREFIX}. (the seed's behaviour); configure [[auth.write_tokens]] or set require_write_tokens = true to close it`,
    );
  }
  if (c.registryMasterKeys.length === 0) {
    out.push(
      `WARNING: no registry master key (registry_master_key_file): every write under ${RESERVED_SERVICE_PREFIX}. is refused, so Orrery's workers cannot register here`,
    );
  }
  return out;
}
