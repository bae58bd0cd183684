import { isRecord } from './path.ts';
import { REASONS } from './reasons.ts';
import { duplicates } from './rules/duplicates.ts';
import { DOMAIN_HOSTS_UNIQUE, DOMAIN_REDIRECT_NEEDS_TLS } from './rules/domain-rules.ts';
import type { ValidationError } from './types.ts';

/**
 * `spec.domains` rules beyond each field's own (host format and Secret name are field rules in
 * DomainSchema): each host once, and redirectToHTTPS only with tls. The decisions are the rules'
 * (rules/domain-rules.ts, whose CEL twins the CRD carries); this adds where and why.
 * That a host is held by another Function is not an admission error: it is cluster-wide state,
 * judged by the claim rule (domain-claims.ts) and reported in status.domains.
 */
export function checkDomains(domains: unknown): ValidationError[] {
  if (!Array.isArray(domains) || domains.length === 0) return [];
  const errors: ValidationError[] = [];
  domains.forEach((d, i) => {
    if (isRecord(d) && !DOMAIN_REDIRECT_NEEDS_TLS.holds(d)) {
      errors.push({ path: `spec.domains[${i}].redirectToHTTPS`, reason: 'domain_redirect_needs_tls', message: REASONS.domain_redirect_needs_tls });
    }
  });
  if (!DOMAIN_HOSTS_UNIQUE.holds(domains)) {
    const hosts = domains.map((d) => (isRecord(d) ? d.host : undefined));
    for (const { index, first } of duplicates(hosts)) {
      errors.push({ path: `spec.domains[${index}].host`, reason: 'domain_duplicate', message: `host "${String(hosts[index])}" is already listed at spec.domains[${first}]: ${REASONS.domain_duplicate}` });
    }
  }
  return errors;
}
