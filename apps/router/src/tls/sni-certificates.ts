/**
 * Which certificate answers a TLS ClientHello: the one whose host is exactly the server name the
 * client sent (SNI), compared as DNS compares names (case-insensitive, a trailing dot ignored).
 * No wildcard and no default: a name the router serves no certificate for — or no name at all —
 * gets no certificate, and the handshake is refused (docs/domains.md "Unknown names"). Pure.
 */

/** A server name as the certificate table spells hosts. */
export function serverNameKey(servername: string): string {
  const name = servername.length > 0 && servername.charCodeAt(servername.length - 1) === 46 /* . */ ? servername.slice(0, -1) : servername;
  return name.toLowerCase();
}

export function certificateFor<T>(table: ReadonlyMap<string, T>, servername: string | undefined): T | undefined {
  if (servername === undefined || servername.length === 0) return undefined;
  return table.get(serverNameKey(servername));
}
