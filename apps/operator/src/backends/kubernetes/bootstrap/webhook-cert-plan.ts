/**
 * When the operator-made webhook certificate must be (re)issued, and which CAs the webhook
 * configurations' caBundle trusts. Pure: the keeper (webhook-cert-keeper.ts) feeds it what it
 * read from the Secret and the clock.
 */

export interface CertFacts {
  notBefore: number;
  notAfter: number;
}

export interface ServingFacts extends CertFacts {
  dnsNames: string[];
  /** Signed by the Secret's current CA (the first certificate of ca.crt). */
  issuedByCurrentCa: boolean;
}

export interface WebhookCertState {
  /** The current CA; undefined when missing, unparsable or its key is missing. */
  ca?: CertFacts;
  serving?: ServingFacts;
}

export interface WebhookCertPolicy {
  caLifetimeMs: number;
  servingLifetimeMs: number;
  /** Fraction of a certificate's lifetime after which it is replaced (0.8 = at 80 %). */
  renewAt: number;
}

const DAY = 86_400_000;
/** CA 5 years, serving certificate 1 year, both replaced at 80 %: the old CA stays trusted for its last year. */
export const DEFAULT_WEBHOOK_CERT_POLICY: WebhookCertPolicy = { caLifetimeMs: 5 * 365 * DAY, servingLifetimeMs: 365 * DAY, renewAt: 0.8 };

export type WebhookCertAction =
  | { action: 'keep'; nextCheckAt: number }
  | { action: 'issue-serving'; reason: string }
  | { action: 'new-ca'; reason: string };

const renewTime = (c: CertFacts, p: WebhookCertPolicy) => c.notBefore + (c.notAfter - c.notBefore) * p.renewAt;

export function planWebhookCert(state: WebhookCertState, now: number, dnsNames: string[], policy: WebhookCertPolicy = DEFAULT_WEBHOOK_CERT_POLICY): WebhookCertAction {
  const { ca, serving } = state;
  if (!ca) return { action: 'new-ca', reason: 'no usable CA in the Secret' };
  if (now >= renewTime(ca, policy)) return { action: 'new-ca', reason: `CA reached ${Math.round(policy.renewAt * 100)} % of its lifetime` };
  if (!serving) return { action: 'issue-serving', reason: 'no usable serving certificate in the Secret' };
  if (!serving.issuedByCurrentCa) return { action: 'issue-serving', reason: 'serving certificate not signed by the current CA' };
  const missing = dnsNames.filter((n) => !serving.dnsNames.includes(n));
  if (missing.length) return { action: 'issue-serving', reason: `serving certificate lacks ${missing.join(', ')}` };
  if (now < serving.notBefore) return { action: 'issue-serving', reason: 'serving certificate not yet valid' };
  if (now >= renewTime(serving, policy)) return { action: 'issue-serving', reason: `serving certificate reached ${Math.round(policy.renewAt * 100)} % of its lifetime` };
  return { action: 'keep', nextCheckAt: Math.min(renewTime(ca, policy), renewTime(serving, policy)) };
}

/** Validity of a new serving certificate: never beyond its CA (a client would reject the chain). */
export function servingValidity(ca: CertFacts, now: number, policy: WebhookCertPolicy = DEFAULT_WEBHOOK_CERT_POLICY): CertFacts {
  return { notBefore: now - 60_000, notAfter: Math.min(now + policy.servingLifetimeMs, ca.notAfter) };
}

export interface BundleEntry extends CertFacts {
  pem: string;
}

/**
 * The CAs to trust: the current one first, then earlier ones that have not expired — the overlap
 * in which replicas may still serve a certificate of the old CA. Duplicates dropped.
 */
export function composeCaBundle(current: BundleEntry, earlier: BundleEntry[], now: number): BundleEntry[] {
  const out = [current];
  for (const e of earlier) {
    if (e.notAfter <= now) continue;
    if (out.some((o) => o.pem.trim() === e.pem.trim())) continue;
    out.push(e);
  }
  return out;
}
