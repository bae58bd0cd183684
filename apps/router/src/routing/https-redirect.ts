/**
 * HTTP → HTTPS for hosts with `redirectToHTTPS` (docs/domains.md): 308 Permanent Redirect (the
 * method and body are kept, unlike 301/302), the same path and query on `https://<host>`, with
 * the port only when it is not 443. Pure.
 */

/**
 * Whether this request must be redirected: it asked for a redirecting host and did not arrive
 * over TLS — neither on the router's TLS port nor, by a trusted proxy's word
 * (`--trusted-proxies`, X-Forwarded-Proto: https), at a TLS-terminating proxy in front.
 */
export function needsHttpsRedirect(redirectToHTTPS: boolean, arrivedOverTls: boolean, peerTrusted: boolean, forwardedProto: string | undefined): boolean {
  if (!redirectToHTTPS || arrivedOverTls) return false;
  if (peerTrusted && forwardedProto !== undefined) {
    const comma = forwardedProto.indexOf(',');
    if ((comma < 0 ? forwardedProto : forwardedProto.slice(0, comma)).trim().toLowerCase() === 'https') return false;
  }
  return true;
}

/**
 * The Location: `host` is the matched domain (validated, lower-case: nothing of the client's
 * Host header beyond it is echoed), `target` the request target as received — origin-form as
 * is, absolute-form reduced to its path and query.
 */
export function httpsLocation(host: string, target: string, httpsPort: number): string {
  let path = target;
  if (path.length === 0 || path.charCodeAt(0) !== 47 /* / */) {
    const scheme = path.indexOf('://');
    const slash = scheme < 0 ? -1 : path.indexOf('/', scheme + 3);
    const query = path.indexOf('?', scheme + 3);
    path = slash >= 0 && (query < 0 || slash < query) ? path.slice(slash) : query >= 0 ? `/${path.slice(query)}` : '/';
  }
  return `https://${host}${httpsPort === 443 ? '' : `:${httpsPort}`}${path}`;
}
