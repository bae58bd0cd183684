/**
 * The forwarding headers the router sends upstream, computed from the peer (the TCP address of
 * whoever connected), the `--trusted-proxies` list and what the request carried. Pure.
 *
 * The router is the edge unless told otherwise: what a client claims about itself
 * (X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host, Forwarded, X-Real-IP) is dropped and
 * replaced by what the router saw. Only when the peer is a trusted proxy are its claims kept:
 * X-Forwarded-For and Forwarded are appended to (RFC 7239 §4: each proxy adds its element),
 * its X-Forwarded-Proto (`http` or `https` only) and X-Forwarded-Host are kept, and X-Real-IP
 * is the first address, walking X-Forwarded-For from the right, that is not a trusted proxy
 * (nginx's `real_ip_recursive`).
 */
import type { TrustedProxies } from './trusted-proxies.ts';
import { parseIp } from './trusted-proxies.ts';

/** What the client sent (request-head.ts collects it; repeated lines joined with ", "). */
export interface IncomingForwarding {
  forwardedFor: string | undefined;
  forwardedProto: string | undefined;
  forwardedHost: string | undefined;
  forwarded: string | undefined;
  realIp: string | undefined;
}

/** `::ffff:10.1.2.3` → `10.1.2.3` (a dual-stack listener reports IPv4 peers so). */
export function plainAddress(address: string): string {
  return address.length > 7 && address.charCodeAt(0) === 0x3a && address.startsWith('::ffff:') && address.indexOf('.') > 0 ? address.slice(7) : address;
}

/** RFC 7239 node: an IPv4 address as a token, an IPv6 one quoted in brackets, none as `unknown`. */
export function forwardedNode(address: string): string {
  if (address === '') return 'unknown';
  return address.indexOf(':') >= 0 ? `"[${address}]"` : address;
}

const TCHAR = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A Forwarded parameter value: a token as is, anything else as a quoted-string. */
export function forwardedValue(value: string): string {
  if (TCHAR.test(value)) return value;
  // A host:port is no token: quoted, and escaped only when there is something to escape.
  if (value.indexOf('"') < 0 && value.indexOf('\\') < 0) return `"${value}"`;
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/** The last element built: a client keeps its peer address and Host from one request to the next. */
let lastElement = { peer: '', host: undefined as string | undefined, proto: '', element: '' };

/** This hop's Forwarded element: who connected, the Host it asked for, and the protocol it arrived over (https on the TLS port). */
function ownElement(peer: string, host: string | undefined, proto = 'http'): string {
  const last = lastElement;
  if (last.element !== '' && last.peer === peer && last.host === host && last.proto === proto) return last.element;
  const element = host ? `for=${forwardedNode(peer)};host=${forwardedValue(host)};proto=${proto}` : `for=${forwardedNode(peer)};proto=${proto}`;
  lastElement = { peer, host, proto, element };
  return element;
}

/** `https`/`http` from the first element of a trusted X-Forwarded-Proto; anything else is not believed. */
function trustedProto(value: string | undefined): string {
  if (value === undefined) return 'http';
  const comma = value.indexOf(',');
  const first = (comma < 0 ? value : value.slice(0, comma)).trim().toLowerCase();
  return first === 'https' || first === 'http' ? first : 'http';
}

/** One X-Forwarded-For element as an address: `[v6]`, `v4:port` and `[v6]:port` forms are accepted. */
function xffAddress(element: string): string | undefined {
  let e = element.trim();
  if (e.startsWith('[')) {
    const close = e.indexOf(']');
    if (close < 0) return undefined;
    e = e.slice(1, close);
  } else if (e.indexOf(':') > 0 && e.indexOf(':') === e.lastIndexOf(':')) {
    e = e.slice(0, e.indexOf(':')); // a.b.c.d:port
  }
  return parseIp(e) ? plainAddress(e) : undefined;
}

/**
 * The client's address when the peer is trusted: walking X-Forwarded-For from the right, the
 * first address that is not a trusted proxy. An element that is not an address ends the walk
 * at the last hop that was (never believing what lies to its left).
 */
export function clientAddress(forwardedFor: string | undefined, peer: string, trusted: TrustedProxies): string {
  let client = peer;
  if (forwardedFor === undefined) return client;
  const elements = forwardedFor.split(',');
  for (let i = elements.length - 1; i >= 0; i--) {
    if (!trusted.contains(client)) return client;
    const next = xffAddress(elements[i]!);
    if (next === undefined) return client;
    client = next;
  }
  return client;
}

/**
 * Appends the upstream's forwarding headers to `out` (a flat [name, value, …] list from which
 * request-head.ts removed the client's). `peer` is the socket's remote address; `tls`: the
 * request arrived on the router's TLS port (custom domains), so its protocol is https.
 */
export function appendForwardedHeaders(out: string[], peerAddress: string, host: string | undefined, incoming: IncomingForwarding, trusted: TrustedProxies | undefined, tls = false): void {
  const peer = plainAddress(peerAddress);
  const own = tls ? 'https' : 'http';
  if (trusted === undefined || !trusted.contains(peer)) {
    out.push('x-forwarded-for', peer, 'x-forwarded-proto', own, 'x-forwarded-host', host ?? '', 'forwarded', ownElement(peer, host, own), 'x-real-ip', peer);
    return;
  }
  const xff = incoming.forwardedFor;
  out.push(
    'x-forwarded-for',
    xff ? `${xff}, ${peer}` : peer,
    'x-forwarded-proto',
    tls ? 'https' : trustedProto(incoming.forwardedProto),
    'x-forwarded-host',
    incoming.forwardedHost ?? host ?? '',
    'forwarded',
    incoming.forwarded ? `${incoming.forwarded}, ${ownElement(peer, host, own)}` : ownElement(peer, host, own),
    'x-real-ip',
    clientAddress(xff, peer, trusted),
  );
}
