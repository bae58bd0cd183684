/**
 * Which function a request is for: host-based `<function>.<namespace>.<domain>` when a domain
 * is configured and the Host matches, else path-based `/{namespace}/{function}/{rest...}`.
 * Returns the path to forward upstream (the rest, with its query string).
 */

export interface IngressTarget {
  namespace: string;
  name: string;
  /** Path and query forwarded to the worker; always starts with "/". */
  upstreamPath: string;
}

export function parseIngressTarget(url: string, host: string | undefined, domainSuffix: string | undefined): IngressTarget | undefined {
  if (domainSuffix && host) {
    const colon = host.lastIndexOf(':');
    const h = (colon > 0 && host.indexOf(']') < colon ? host.slice(0, colon) : host).toLowerCase();
    if (h.endsWith(domainSuffix)) {
      const prefix = h.slice(0, h.length - domainSuffix.length);
      const dot = prefix.indexOf('.');
      if (dot > 0 && dot < prefix.length - 1 && prefix.indexOf('.', dot + 1) < 0) {
        return { name: prefix.slice(0, dot), namespace: prefix.slice(dot + 1), upstreamPath: url.length > 0 && url[0] === '/' ? url : `/${url}` };
      }
    }
  }
  if (url.length < 2 || url.charCodeAt(0) !== 47) return undefined;
  const q = url.indexOf('?');
  const pathEnd = q < 0 ? url.length : q;
  const s1 = url.indexOf('/', 1);
  if (s1 < 0 || s1 >= pathEnd) return undefined;
  let s2 = url.indexOf('/', s1 + 1);
  if (s2 < 0 || s2 > pathEnd) s2 = pathEnd;
  const namespace = url.slice(1, s1);
  const name = url.slice(s1 + 1, s2);
  if (namespace.length === 0 || name.length === 0) return undefined;
  const rest = url.slice(s2);
  const upstreamPath = rest.length === 0 ? '/' : rest.charCodeAt(0) === 63 /* ? */ ? `/${rest}` : rest;
  return { namespace, name, upstreamPath };
}
