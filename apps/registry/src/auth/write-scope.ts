import { createHash, timingSafeEqual } from 'node:crypto';
import { isValidNamespace } from '../model/instance.ts';
import { isValidSegment, serviceHasPrefix } from '../model/service-name.ts';
import { isReservedService, prefixIsReserved } from './reserved-service.ts';

/**
 * Scoped write tokens for services outside `orrery.functions.` (like Consul ACL tokens with a
 * `service_prefix` write rule): a token covers a write when the instance's namespace is one of
 * its `namespaces` and its service starts with one of its `servicePrefixes` (whole segments);
 * `*` is any. A write token never covers a reserved service, whatever its scope says.
 */
export interface WriteToken {
  name: string;
  token: string;
  namespaces: string[];
  servicePrefixes: string[];
}

export const ANY = '*';

export function scopeCovers(t: Pick<WriteToken, 'namespaces' | 'servicePrefixes'>, namespace: string, service: string): boolean {
  if (isReservedService(service)) return false;
  const nsOk = t.namespaces.some((n) => n === ANY || n === namespace);
  return nsOk && t.servicePrefixes.some((p) => p === ANY || serviceHasPrefix(service, p));
}

export function describeScope(t: Pick<WriteToken, 'namespaces' | 'servicePrefixes'>): string {
  return `namespaces [${t.namespaces.join(', ')}], service prefixes [${t.servicePrefixes.join(', ')}]`;
}

/** Problems with one token's scope (empty when it is fine); names the token, never its value. */
export function scopeProblems(t: Pick<WriteToken, 'name' | 'namespaces' | 'servicePrefixes'>): string[] {
  const out: string[] = [];
  for (const n of t.namespaces) {
    if (n !== ANY && !isValidNamespace(n)) out.push(`write token "${t.name}": namespace "${n}" is not a namespace (lowercase DNS label) or "*"`);
  }
  for (const p of t.servicePrefixes) {
    if (p === ANY) continue;
    const parts = p.split('.');
    if (parts.length > 5 || !parts.every(isValidSegment)) {
      out.push(`write token "${t.name}": service prefix "${p}" must be one to five dot-separated segments (e.g. company.trade) or "*"`);
    } else if (prefixIsReserved(p)) {
      out.push(`write token "${t.name}": service prefix "${p}" is inside orrery.functions., which only registration credentials minted by the operator may write; remove it`);
    }
  }
  return out;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Finds the token a caller presented. Every configured token is compared (sha256 digests, so
 * lengths are equal; constant time; no early exit), so timing tells nothing about which matched.
 */
export class WriteTokenSet {
  private readonly digests: Array<{ token: WriteToken; digest: Buffer }>;

  constructor(readonly tokens: readonly WriteToken[]) {
    this.digests = tokens.map((token) => ({ token, digest: digest(token.token) }));
  }

  get size(): number {
    return this.tokens.length;
  }

  find(presented: string): WriteToken | undefined {
    const d = digest(presented);
    let found: WriteToken | undefined;
    for (const e of this.digests) if (timingSafeEqual(d, e.digest) && found === undefined) found = e.token;
    return found;
  }
}
