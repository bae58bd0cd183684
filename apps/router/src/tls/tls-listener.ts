/**
 * The router's TLS port (`--tls-port`, docs/domains.md): a TLS server that terminates TLS for the
 * custom domains the router holds certificates for — the SNI callback picks the certificate by
 * server name from the current table (certificate-folder.ts), so a reload reaches the next
 * handshake while established connections keep theirs — and whose decrypted connections the
 * data plane's ingress serves exactly like the plain port's (wiring/router-servers.ts hands this
 * server to a DataPlaneListener). TLS 1.2 and 1.3 only; by ALPN `h2` and `http/1.1`, or
 * `http/1.1` alone, as the ingress speaks them (application-protocols.ts). A ClientHello
 * without a server name the router holds a certificate for is refused: there is no default
 * certificate, so a scanner learns nothing about which hosts are served here.
 */
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { MIN_TLS_VERSION, type LoadedCertificate } from './certificate-folder.ts';
import { certificateFor } from './sni-certificates.ts';

export interface TlsListenerOptions {
  certificates: () => ReadonlyMap<string, LoadedCertificate>;
  /** ALPN protocols offered, in order of preference (application-protocols.ts); default `http/1.1`. */
  alpnProtocols?: string[];
  /** A handshake must finish within this (slowloris on the handshake); default 10 s. */
  handshakeTimeoutMs?: number;
}

/** For `/v1/stats`: handshakes done and refused (by why), connections open, hosts with a certificate. */
export interface TlsListenerView {
  handshakes: number;
  /** Of those, the ones that chose HTTP/2 by ALPN (`h2`). */
  http2: number;
  /** Refused: a server name the router has no certificate for. */
  unknownName: number;
  /** Refused: a ClientHello without a server name (an IP address, an old client). */
  noName: number;
  /** Any other failed handshake (protocol version, cipher, timeout, reset). */
  failed: number;
  open: number;
  hosts: number;
}

export class UnknownServerName extends Error {
  readonly code = 'ORRERY_UNKNOWN_SERVER_NAME';
}

export class TlsListener {
  readonly server: Server;
  private open = 0;
  private readonly counts = { handshakes: 0, http2: 0, unknownName: 0, noName: 0, failed: 0 };

  constructor(private readonly o: TlsListenerOptions) {
    this.server = createServer(
      {
        minVersion: MIN_TLS_VERSION,
        ALPNProtocols: o.alpnProtocols ?? ['http/1.1'],
        handshakeTimeout: o.handshakeTimeoutMs ?? 10_000,
        // As node's http server and the raw ingress: the ingress handles a half-closed client.
        allowHalfOpen: true,
        noDelay: true,
        SNICallback: (servername, cb) => {
          const cert = certificateFor(o.certificates(), servername);
          if (cert) cb(null, cert.context);
          else cb(new UnknownServerName(`no certificate for server name ${JSON.stringify(servername.slice(0, 253))}`));
        },
      },
      this.onSecure,
    );
    this.server.on('tlsClientError', (err: Error & { code?: string }) => {
      if (err instanceof UnknownServerName) this.counts.unknownName++;
      // No SNI: the default context has no certificate, so OpenSSL finds nothing to sign with.
      else if (/NO_SUITABLE_SIGNATURE|NO_SHARED_CIPHER/.test(err.code ?? '')) this.counts.noName++;
      else this.counts.failed++;
    });
  }

  private readonly onSecure = (socket: TLSSocket): void => {
    this.counts.handshakes++;
    if (socket.alpnProtocol === 'h2') this.counts.http2++;
    this.open++;
    socket.once('close', () => this.open--);
  };

  view(): TlsListenerView {
    return { ...this.counts, open: this.open, hosts: this.o.certificates().size };
  }
}
