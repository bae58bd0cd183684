import { duplicates } from './duplicates.ts';
import { isRecord, type ObjectRule } from './object-rule.ts';

/** Most hosts one Function may list (keeps the uniqueness rule within CEL's cost budget). */
export const MAX_DOMAINS = 16;

/**
 * A host of `spec.domains`: lower-case DNS labels (1–63 characters of letters, digits and "-",
 * not starting or ending with "-") joined by dots, at least two of them, the last starting with
 * a letter — so no IP address, no wildcard, no port, no trailing dot. Length ≤ 253 is a separate
 * check (Kubernetes' regular expressions have no lookahead).
 */
export const DOMAIN_HOST_PATTERN = /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A Secret's name as Kubernetes spells it (DNS-1123 subdomain); function.ts has the same for env secrets. */
export const DOMAIN_SECRET_NAME_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** On each domain: redirecting to HTTPS needs a certificate to serve HTTPS with. */
export const DOMAIN_REDIRECT_NEEDS_TLS: ObjectRule = {
  reason: 'domain_redirect_needs_tls',
  cel: '!has(self.redirectToHTTPS) || !self.redirectToHTTPS || has(self.tls)',
  fieldPath: '.redirectToHTTPS',
  holds: (d) => !isRecord(d) || d.redirectToHTTPS !== true || d.tls !== undefined,
};

/** On spec.domains: each host once (a second entry could only disagree with the first). */
export const DOMAIN_HOSTS_UNIQUE: ObjectRule = {
  reason: 'domain_duplicate',
  cel: 'self.all(d, !has(d.host) || self.exists_one(e, has(e.host) && e.host == d.host))',
  holds: (domains) => duplicates(Array.isArray(domains) ? domains.map((d) => (isRecord(d) ? d.host : undefined)) : []).length === 0,
};
