/**
 * What the custom domains of every Function come to, pure: each Function's status.domains and
 * the certificates the routers serve. A host is served for the Function holding it (the claim
 * rule of @orrery/spec: oldest wins); with tls, only when its Secret's certificate passes
 * certificate-check.ts — only such certificates reach the routers' bundle. Without tls the host
 * is served over plain HTTP and is Ready.
 */
import { domainHolders, routerCertificatePem, type DomainStatus } from '@orrery/spec';
import { checkCertificate } from './certificate-check.ts';
import { objectKey } from '../queue/object-key.ts';
import type { TlsSecret } from './domain-backend.ts';

export interface DomainEntry {
  host: string;
  secretName: string | undefined;
}

export interface DomainOwner {
  namespace: string;
  name: string;
  domains: DomainEntry[];
}

export interface DomainPlan {
  /** `<namespace>/<name>` → status.domains, for every Function that lists domains. */
  statuses: Map<string, DomainStatus[]>;
  /** host → `<chain><key>` PEM for the routers, checked certificates only. */
  bundle: Map<string, string>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A Function's domains, read leniently from the stored object (admission validated it). */
export function domainOwner(fn: unknown): DomainOwner | undefined {
  if (!isRecord(fn) || !isRecord(fn.metadata) || !isRecord(fn.spec) || !Array.isArray(fn.spec.domains) || fn.spec.domains.length === 0) return undefined;
  if (typeof fn.metadata.name !== 'string') return undefined;
  const namespace = typeof fn.metadata.namespace === 'string' && fn.metadata.namespace ? fn.metadata.namespace : 'default';
  const domains: DomainEntry[] = [];
  for (const d of fn.spec.domains) {
    if (!isRecord(d) || typeof d.host !== 'string' || domains.some((e) => e.host === d.host)) continue;
    const secretName = isRecord(d.tls) && typeof d.tls.secretName === 'string' ? d.tls.secretName : undefined;
    domains.push({ host: d.host, secretName });
  }
  return { namespace, name: fn.metadata.name, domains };
}

export const secretKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** The Secrets worth reading: those of hosts their Function holds (a losing claim needs none). */
export function secretsToRead(functions: readonly unknown[]): Array<{ namespace: string; name: string }> {
  const holders = domainHolders(functions);
  const out = new Map<string, { namespace: string; name: string }>();
  for (const fn of functions) {
    const owner = domainOwner(fn);
    if (!owner) continue;
    for (const d of owner.domains) {
      const h = holders.get(d.host);
      if (d.secretName && h && h.namespace === owner.namespace && h.name === owner.name) out.set(secretKey(owner.namespace, d.secretName), { namespace: owner.namespace, name: d.secretName });
    }
  }
  return [...out.values()];
}

/** `secrets`: what secretsToRead named, read (undefined = no such Secret). */
export function planDomains(functions: readonly unknown[], secrets: ReadonlyMap<string, TlsSecret | undefined>, now: Date): DomainPlan {
  const holders = domainHolders(functions);
  const statuses = new Map<string, DomainStatus[]>();
  const bundle = new Map<string, string>();
  for (const fn of functions) {
    const owner = domainOwner(fn);
    if (!owner) continue;
    const list: DomainStatus[] = [];
    for (const d of owner.domains) {
      const holder = holders.get(d.host);
      if (!holder || holder.namespace !== owner.namespace || holder.name !== owner.name) {
        // No holder at all: this Function is being deleted (it claims nothing).
        const by = holder ? `${holder.namespace}/${holder.name}` : undefined;
        list.push({
          host: d.host,
          ready: false,
          reason: 'DomainClaimed',
          ...(by ? { claimedBy: by } : {}),
          message: by ? `${d.host} is served for Function ${by}, which listed it first; remove it from one of the two` : `${d.host} is not served: this Function is being deleted`,
        });
        continue;
      }
      if (!d.secretName) {
        list.push({ host: d.host, ready: true, reason: 'Ready', message: 'served over plain HTTP (no tls)' });
        continue;
      }
      const where = `Secret ${owner.namespace}/${d.secretName}`;
      const secret = secrets.get(secretKey(owner.namespace, d.secretName));
      if (!secret || secret.crt === undefined || secret.key === undefined) {
        const missing = !secret ? `${where} does not exist (on Kubernetes it must be of type kubernetes.io/tls)` : `${where} has no ${secret.crt === undefined ? 'tls.crt' : 'tls.key'}`;
        list.push({ host: d.host, ready: false, reason: 'CertificateMissing', message: `${missing}; create it with tls.crt and tls.key (locally: orrery tls cert ${d.host} --secret ${owner.namespace}/${d.secretName})` });
        continue;
      }
      const check = checkCertificate({ chainPem: secret.crt, keyPem: secret.key, host: d.host, now });
      if (!check.ok) {
        list.push({ host: d.host, ready: false, reason: 'CertificateInvalid', problem: check.problem, message: `${where}: ${check.message}`, ...(check.certificate ? { certificate: check.certificate } : {}) });
        continue;
      }
      bundle.set(d.host, routerCertificatePem(check.chainPem, secret.key));
      list.push({ host: d.host, ready: true, reason: 'Ready', message: `served over HTTPS with ${where}`, certificate: check.certificate });
    }
    statuses.set(objectKey(owner.namespace, owner.name), list);
  }
  return { statuses, bundle };
}
