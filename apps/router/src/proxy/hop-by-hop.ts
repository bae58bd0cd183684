/**
 * Header filtering for the proxy (RFC 9110 §7.6.1): hop-by-hop headers and those named by
 * Connection are not forwarded. Works on node's flat raw header arrays to avoid objects.
 */

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate', 'proxy-authorization']);

export function isHopByHop(lowerName: string): boolean {
  return HOP_BY_HOP.has(lowerName);
}

/** Extra names listed in a Connection header value ("close" / "keep-alive" are not header names). */
export function connectionTokens(value: string | undefined): Set<string> | undefined {
  if (!value) return undefined;
  // What clients send on nearly every request: nothing to split.
  if (value.length === 10 && value.toLowerCase() === 'keep-alive') return undefined;
  let out: Set<string> | undefined;
  for (const t of value.split(',')) {
    const name = t.trim().toLowerCase();
    if (name && name !== 'close' && name !== 'keep-alive') (out ??= new Set()).add(name);
  }
  return out;
}
