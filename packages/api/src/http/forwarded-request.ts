import { normalizeAddress, parseAddress, type TrustedProxies } from './trusted-proxies.ts';

export interface ForwardedInput {
  /** The TCP peer (socket.remoteAddress). */
  peer: string | undefined;
  /** The connection itself is TLS. */
  encrypted: boolean;
  xForwardedFor?: string | null;
  xForwardedProto?: string | null;
  xForwardedHost?: string | null;
  host?: string | null;
}

export interface ForwardedFacts {
  /** The client's address: the peer, or from a trusted proxy the nearest untrusted hop of X-Forwarded-For. */
  clientAddress: string | undefined;
  /** The client reached us over https: a trusted proxy's X-Forwarded-Proto, else this connection's TLS. */
  secure: boolean;
  /** The host the client asked for (Host, or X-Forwarded-Host from a trusted proxy). */
  host: string | undefined;
  /** The peer is a trusted proxy. */
  viaTrustedProxy: boolean;
}

const lastValue = (v: string | null | undefined): string | undefined => v?.split(',').map((s) => s.trim()).filter(Boolean).at(-1);

/**
 * What a request says about its client, believing `X-Forwarded-*` only from a trusted proxy. Of a
 * trusted proxy's headers the last value counts (the one that proxy wrote); X-Forwarded-For is
 * walked from the right past trusted hops, so a client cannot prepend an address of its choice.
 */
export function forwardedFacts(req: ForwardedInput, trusted: TrustedProxies): ForwardedFacts {
  const peer = req.peer ? normalizeAddress(req.peer) : undefined;
  const host = req.host ?? undefined;
  if (!trusted.has(peer)) return { clientAddress: peer, secure: req.encrypted, host, viaTrustedProxy: false };
  let client = peer;
  const hops = (req.xForwardedFor ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i]!);
    if (!parseAddress(hop)) break; // garbage: keep the last address a trusted hop vouched for
    client = hop;
    if (!trusted.has(hop)) break;
  }
  const proto = lastValue(req.xForwardedProto)?.toLowerCase();
  return { clientAddress: client, secure: proto ? proto === 'https' : req.encrypted, host: lastValue(req.xForwardedHost) ?? host, viaTrustedProxy: true };
}
