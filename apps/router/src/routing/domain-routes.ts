/**
 * Custom domains (`spec.domains`, docs/domains.md): the exact host → Function table, compiled
 * with the route table, and the match of a request's Host header against it. The claim rule of
 * @orrery/spec decides which Function holds a host when several list it (oldest wins), the same
 * rule the operator reports in status.domains, so every replica agrees without coordination.
 */
import { domainHolders, type OrreryFunction } from '@orrery/spec';
import type { FunctionRoute } from './route-table.ts';
import { namespacedKey } from './namespaced-key.ts';

export interface DomainRoute {
  host: string;
  fn: FunctionRoute;
  /** Plain-HTTP requests get 308 to HTTPS (https-redirect.ts). */
  redirectToHTTPS: boolean;
}

/** Host → route for every host a Function holds; `routes` are the compiled functions by `<namespace>/<name>`. */
export function compileDomainRoutes(functions: readonly OrreryFunction[], routes: ReadonlyMap<string, FunctionRoute>): Map<string, DomainRoute> {
  const out = new Map<string, DomainRoute>();
  if (!functions.some((f) => f.spec.domains?.length)) return out;
  const holders = domainHolders(functions);
  for (const fn of functions) {
    for (const d of fn.spec.domains ?? []) {
      const holder = holders.get(d.host);
      if (!holder || holder.namespace !== fn.metadata.namespace || holder.name !== fn.metadata.name) continue;
      const route = routes.get(namespacedKey(fn.metadata.namespace, fn.metadata.name));
      if (route) out.set(d.host, { host: d.host, fn: route, redirectToHTTPS: d.redirectToHTTPS === true });
    }
  }
  return out;
}

/**
 * The host name a Host header (or `:authority`) names, as the domain table spells hosts:
 * without the port, lower-cased, without a trailing dot. Undefined when there is none, or for
 * an IPv6 literal (never a domain).
 */
export function requestHostName(host: string | undefined): string | undefined {
  if (host === undefined || host.length === 0 || host.charCodeAt(0) === 91 /* [ */) return undefined;
  const colon = host.indexOf(':');
  let h = colon < 0 ? host : host.slice(0, colon);
  if (h.length > 0 && h.charCodeAt(h.length - 1) === 46 /* . */) h = h.slice(0, -1);
  return h.length === 0 ? undefined : h.toLowerCase();
}

/**
 * The custom-domain route for a request's Host, or undefined. A host under the router's own
 * `--domain` (`<function>.<namespace>.<domain>`) is never a custom domain: otherwise a Function
 * could take over another one's generated host name.
 */
export function matchDomain(table: ReadonlyMap<string, DomainRoute>, hostHeader: string | undefined, reservedSuffix: string | undefined): DomainRoute | undefined {
  const host = requestHostName(hostHeader);
  if (host === undefined) return undefined;
  const route = table.get(host);
  if (!route || (reservedSuffix !== undefined && isReserved(host, reservedSuffix))) return undefined;
  return route;
}

/** `reservedSuffix` is ".<domain>": the domain itself and every name under it. */
export function isReserved(host: string, reservedSuffix: string): boolean {
  return host.endsWith(reservedSuffix) || host === reservedSuffix.slice(1);
}

/** Where a custom-domain request goes: the holding Function, with the whole request target forwarded. */
export function domainTarget(route: DomainRoute, url: string): { namespace: string; name: string; upstreamPath: string } {
  return { namespace: route.fn.namespace, name: route.fn.name, upstreamPath: url.length > 0 && url.charCodeAt(0) === 47 ? url : `/${url}` };
}
