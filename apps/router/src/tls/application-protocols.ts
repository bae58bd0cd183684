/**
 * What the TLS port offers by ALPN (RFC 7301), in the server's order of preference. With the raw
 * ingress, `h2` first: an h2 client opens with the HTTP/2 preface, which the raw ingress hands to
 * the same HTTP/2 server as h2c prior knowledge (http2/http2-ingress.ts), so gRPC over TLS works.
 * node:http (`--ingress node`) serves HTTP/1.1 only, so there `h2` is not offered and HTTP/2
 * clients fall back (a client that offers only `h2`, as gRPC's do, is refused at the handshake
 * rather than served a protocol it cannot read). Pure.
 */
import type { IngressMode } from '../ingress/data-plane-listener.ts';

export function applicationProtocols(ingress: IngressMode): string[] {
  return ingress === 'raw' ? ['h2', 'http/1.1'] : ['http/1.1'];
}
