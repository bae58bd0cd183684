/**
 * The TLS side of one router replica (`--tls-port`, docs/domains.md), assembled: the certificate
 * folder watch, the TLS server choosing by SNI, and a second DataPlaneListener — the same ingress
 * as the plain port — serving its decrypted connections through the data plane's TLS entry. An
 * `h2` connection (ALPN) opens with the HTTP/2 preface, which that ingress hands to its HTTP/2
 * server exactly as it does h2c prior knowledge: the same streams, drain (GOAWAY) and limits.
 */
import type { MessageLog } from '@orrery/log';
import type { DataPlane } from '../data-plane.ts';
import { DataPlaneListener, type IngressMode } from '../ingress/data-plane-listener.ts';
import { applicationProtocols } from './application-protocols.ts';
import { type FolderLoad, watchCertificateFolder } from './certificate-folder.ts';
import { TlsListener, type TlsListenerView } from './tls-listener.ts';

export interface RouterTlsSettings {
  port: number;
  /** The certificate folder: `<host>.pem` files (chain, then key) the operator writes. */
  certsDir: string;
}

/** `/v1/stats` `tls`: the handshakes, and the TLS port's ingress (HTTP/2 sessions, handovers). */
export type RouterTlsView = TlsListenerView & { ingress: ReturnType<DataPlaneListener['view']> };

export interface RouterTls {
  port: number;
  view(): RouterTlsView;
  startDrain(): void;
  close(drained: boolean): Promise<void>;
}

/** What a reload says: hosts with serial and expiry, and files that did not load — never key material. */
export function describeLoad(load: FolderLoad): string {
  const hosts = [...load.table.values()].map((c) => `${c.host} (serial ${c.serialNumber}, until ${c.notAfter})`);
  return `tls certificates: ${hosts.length} host(s)${hosts.length ? `: ${hosts.join(', ')}` : ''}`;
}

export async function startRouterTls(o: { settings: RouterTlsSettings; host: string; ingress: IngressMode; plane: DataPlane; log: MessageLog }): Promise<RouterTls> {
  const folder = await watchCertificateFolder({
    dir: o.settings.certsDir,
    onLoad: (load) => {
      o.log(describeLoad(load));
      for (const p of load.problems) o.log(`tls certificate ${p}`, 'warn');
    },
    onError: (err) => o.log(`tls certificates in ${o.settings.certsDir}: ${(err as Error).message} (keeping the last good ones)`, 'warn'),
  });
  const tls = new TlsListener({ certificates: () => folder.table, alpnProtocols: applicationProtocols(o.ingress) });
  const listener = new DataPlaneListener(o.ingress, o.plane.handleTls, tls.server);
  let address;
  try {
    address = await listener.listen(o.settings.port, o.host);
  } catch (err) {
    folder.stop();
    throw err;
  }
  return {
    port: address.port,
    view: () => ({ ...tls.view(), ingress: listener.view() }),
    startDrain: () => listener.startDrain(),
    async close(drained) {
      folder.stop();
      await listener.close(drained);
    },
  };
}
