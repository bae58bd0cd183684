import { RESERVED_SERVICE_PREFIX } from '@orrery/spec';

/**
 * The platform's reserved service space, `orrery.functions.<namespace>.<function>.<revision>`:
 * Orrery's workers, which the router sends traffic to. Matched on whole segments and without
 * regard to case, so `Orrery.Functions.…` cannot slip past the credential check (the router only
 * ever uses the lowercase name, and the operator only mints credentials for it).
 */
export function isReservedService(service: string): boolean {
  const s = service.toLowerCase();
  return s === RESERVED_SERVICE_PREFIX || s.startsWith(`${RESERVED_SERVICE_PREFIX}.`);
}

/** True when a service prefix (1–5 segments) could only ever match reserved services. */
export function prefixIsReserved(prefix: string): boolean {
  return isReservedService(prefix);
}
