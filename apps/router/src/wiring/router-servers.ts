/**
 * Servers, the fourth wiring step: the data plane's port (raw ingress or node:http) and the admin
 * port, listening. The admin port's `/v1/stats` is assembled here from the components it reports on.
 */
import { stickyOwnerLoad } from '../hot-keys/hot-key-owner.ts';
import { DataPlaneListener } from '../ingress/data-plane-listener.ts';
import { createAdminServer } from '../server/admin-server.ts';
import { listen } from '../server/listen.ts';
import { type RouterTls, startRouterTls } from '../tls/router-tls.ts';
import type { RouterComponents } from './router-components.ts';
import type { RouterSources } from './router-sources.ts';
import type { RouterOptions } from './router-options.ts';

export interface RouterServers {
  url: string;
  adminUrl: string;
  /** The bound ports (a port of 0 is known only once listening). */
  port: number;
  adminPort: number;
  /** With `--tls-port`: the TLS listener's URL and bound port. */
  tlsUrl?: string;
  tlsPort?: number;
  /** From now on every data plane answer says Connection: close. */
  startDrain(): void;
  /** `drained`: clients were told to go, so idle connections get the announced keep-alive to leave. */
  close(drained: boolean): Promise<void>;
}

export async function startRouterServers(o: RouterOptions, c: RouterComponents, sources: RouterSources): Promise<RouterServers> {
  const dataPort = new DataPlaneListener(o.ingress ?? 'raw', c.plane.handle);
  const admin = createAdminServer({
    routerId: o.routerId,
    token: o.operatorToken,
    metrics: c.metrics,
    stats: () => ({
      ...c.stats.view(),
      endpoints: c.index.all(),
      quarantined: c.quarantine.entries(),
      dialErrors: c.plane.dialErrors,
      upstreamRetries: c.plane.upstreamRetries,
      upstreamReplays: c.plane.upstreamReplays,
      activatorOutOfPath: c.activator.view(),
      ingress: dataPort.view(),
      registry: sources.registry?.status(),
      statesync: o.sharedTables?.status(),
      tls: tls?.view(),
    }),
    hotKeys: c.hotKeys,
    owner: (ns, name, hi, lo) => stickyOwnerLoad(c.plane.routes.get(ns, name), hi, lo, (k) => c.index.ready(k), (rev) => c.activator.admitLimit(rev)),
  });
  // Custom domains over TLS (docs/domains.md): the same ingress, fed by a TLS server.
  let tls: RouterTls | undefined;
  const data = await dataPort.listen(o.port, o.host);
  if (o.tls) tls = await startRouterTls({ settings: o.tls, host: o.host, ingress: o.ingress ?? 'raw', plane: c.plane, log: o.log });
  c.plane.httpsPort = o.tlsRedirectPort ?? tls?.port ?? 443;
  const adminAddress = await listen(admin, o.adminPort, o.host);
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    ...(tls ? { tlsUrl: `https://${host}:${tls.port}`, tlsPort: tls.port } : {}),
    url: `http://${host}:${data.port}`,
    adminUrl: `http://${host}:${adminAddress.port}`,
    port: data.port,
    adminPort: adminAddress.port,
    startDrain: () => {
      dataPort.startDrain();
      tls?.startDrain();
    },
    async close(drained) {
      await Promise.all([dataPort.close(drained), tls?.close(drained)]);
      await new Promise<void>((r) => admin.close(() => r()));
      admin.closeAllConnections();
    },
  };
}
