import { z } from 'zod';
import { says } from '../validate/reasons.ts';
import { withCel } from '../validate/rules/object-rule.ts';
import { DOMAIN_HOST_PATTERN, DOMAIN_HOSTS_UNIQUE, DOMAIN_REDIRECT_NEEDS_TLS, DOMAIN_SECRET_NAME_PATTERN, MAX_DOMAINS } from '../validate/rules/domain-rules.ts';

export { DOMAIN_HOST_PATTERN, MAX_DOMAINS } from '../validate/rules/domain-rules.ts';

/**
 * `spec.domains[]`: host names the router serves this Function on, each optionally with TLS from
 * a Secret (docs/domains.md). A host is one exact, lower-case name: no wildcards, no port, no
 * trailing dot. One host belongs to one Function cluster-wide (the claim rule,
 * validate/domain-claims.ts: the oldest Function wins).
 */
export const DomainTlsSchema = z.object({
  /**
   * A Secret in the Function's namespace with `tls.crt` (the certificate chain, leaf first) and
   * `tls.key` (its private key), as Kubernetes' type kubernetes.io/tls holds them; on the local
   * platform the files `<data-dir>/secrets/<namespace>/<secretName>/tls.crt|tls.key`
   * (`orrery secret set` or `orrery tls cert`).
   */
  secretName: z.string().max(253, says('domain_tls_secret')).regex(DOMAIN_SECRET_NAME_PATTERN, says('domain_tls_secret')),
});
export type DomainTls = z.infer<typeof DomainTlsSchema>;

export const DomainSchema = withCel(
  z.object({
    /** A fully qualified host name, e.g. shop.example.com. */
    host: z.string().max(253, says('domain_host')).regex(DOMAIN_HOST_PATTERN, says('domain_host')),
    tls: DomainTlsSchema.optional(),
    /** Plain-HTTP requests for this host get 308 to the same path and query over HTTPS. Needs tls. */
    redirectToHTTPS: z.boolean().optional(),
  }),
  [DOMAIN_REDIRECT_NEEDS_TLS],
);
export type Domain = z.infer<typeof DomainSchema>;

/** `spec.domains`: at most MAX_DOMAINS, each host once. */
export const DomainsSchema = withCel(z.array(DomainSchema).max(MAX_DOMAINS), [DOMAIN_HOSTS_UNIQUE]);

/**
 * Why a host is (not) served, stable codes the console and automation key on:
 * - `Ready`: the router serves it (over TLS when `tls` is set, the certificate checked);
 * - `DomainClaimed`: another Function holds the host (claimedBy names it);
 * - `CertificateMissing`: the Secret or one of its keys is not there;
 * - `CertificateInvalid`: the certificate cannot serve the host (see `problem`).
 */
export const DOMAIN_STATUS_REASONS = ['Ready', 'DomainClaimed', 'CertificateMissing', 'CertificateInvalid'] as const;
export type DomainStatusReason = (typeof DOMAIN_STATUS_REASONS)[number];

/** What is wrong with a certificate (reason CertificateInvalid). */
export const CERTIFICATE_PROBLEMS = ['unparsable', 'expired', 'notYetValid', 'hostNotCovered', 'keyMismatch', 'notForServers'] as const;
export type CertificateProblem = (typeof CERTIFICATE_PROBLEMS)[number];

export const DomainCertificateSchema = z.object({
  /** RFC 3339. */
  notBefore: z.string(),
  /** RFC 3339: renew before this. */
  notAfter: z.string(),
  /** Hex, upper-case, as openssl prints it. */
  serialNumber: z.string(),
  issuer: z.string(),
  /** The DNS names the certificate covers (subjectAltName). */
  dnsNames: z.array(z.string()),
});
export type DomainCertificate = z.infer<typeof DomainCertificateSchema>;

/** `status.domains[]`: whether the router serves each host, and why not. */
export const DomainStatusSchema = z.object({
  host: z.string(),
  ready: z.boolean(),
  reason: z.enum(DOMAIN_STATUS_REASONS),
  message: z.string().optional(),
  /** `<namespace>/<name>` of the Function that holds the host, when it is another one. */
  claimedBy: z.string().optional(),
  /** With reason CertificateInvalid: which check failed. */
  problem: z.enum(CERTIFICATE_PROBLEMS).optional(),
  /** The certificate read from the Secret (absent without tls or when it does not parse). */
  certificate: DomainCertificateSchema.optional(),
});
export type DomainStatus = z.infer<typeof DomainStatusSchema>;
