/**
 * The claim rule of `spec.domains`: a host is served for exactly one Function in the whole
 * cluster. When several Functions list the same host, the one created first holds it; equal
 * creation times (Kubernetes counts whole seconds) go by namespace, then name; a Function not
 * created yet (no creationTimestamp: a manifest, a routes file) comes after every created one,
 * and one being deleted claims nothing. A total order over plain data, so the operator (status)
 * and every router replica (routing) reach the same answer without talking to each other.
 *
 * Why oldest-wins: a Function that serves a host keeps it. A later Function in another
 * namespace listing the same host cannot take the traffic over (docs/security.md).
 */
import { isRecord } from './path.ts';

export interface DomainClaim {
  host: string;
  namespace: string;
  name: string;
  /** `metadata.creationTimestamp`; absent = not created yet. */
  creationTimestamp?: string;
}

/** `<namespace>/<name>` of the Function holding a host. */
export interface DomainHolder {
  namespace: string;
  name: string;
}

const created = (c: DomainClaim): number => {
  const t = c.creationTimestamp === undefined ? Number.NaN : Date.parse(c.creationTimestamp);
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
};

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The claim order: earlier creation first, then namespace, then name. */
export function compareDomainClaims(a: DomainClaim, b: DomainClaim): number {
  const ta = created(a);
  const tb = created(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return cmp(a.namespace, b.namespace) || cmp(a.name, b.name);
}

/**
 * Every host a Function object lists, as claims (read leniently from raw objects: the router's
 * and the operator's inputs are already validated; anything unreadable claims nothing).
 */
export function domainClaimsOf(fn: unknown): DomainClaim[] {
  if (!isRecord(fn) || !isRecord(fn.metadata) || !isRecord(fn.spec) || !Array.isArray(fn.spec.domains)) return [];
  const { metadata } = fn;
  if (typeof metadata.name !== 'string' || typeof metadata.deletionTimestamp === 'string') return [];
  const namespace = typeof metadata.namespace === 'string' && metadata.namespace ? metadata.namespace : 'default';
  const ts = typeof metadata.creationTimestamp === 'string' ? metadata.creationTimestamp : undefined;
  const seen = new Set<string>();
  const out: DomainClaim[] = [];
  for (const d of fn.spec.domains) {
    if (!isRecord(d) || typeof d.host !== 'string' || d.host === '' || seen.has(d.host)) continue;
    seen.add(d.host);
    out.push({ host: d.host, namespace, name: metadata.name, ...(ts !== undefined ? { creationTimestamp: ts } : {}) });
  }
  return out;
}

/** Host → the Function holding it, over every Function the caller knows (all namespaces). */
export function domainHolders(functions: Iterable<unknown>): Map<string, DomainHolder> {
  const best = new Map<string, DomainClaim>();
  for (const fn of functions) {
    for (const c of domainClaimsOf(fn)) {
      const cur = best.get(c.host);
      if (!cur || compareDomainClaims(c, cur) < 0) best.set(c.host, c);
    }
  }
  return new Map([...best].map(([host, c]) => [host, { namespace: c.namespace, name: c.name }]));
}
