/**
 * Assembles one router replica and reads as its wiring, top to bottom: components (the data plane
 * and what it needs), sources (route and endpoint watches), servers (data and admin ports), the
 * timers, and the shutdown. main.ts reads the config first and installs the signal handlers.
 */
import type { DataPlane } from '../data-plane.ts';
import { refreshPlatformNames } from '../endpoints/platform-name-refresh.ts';
import { startStatsLoop } from '../stats/stats-loop.ts';
import { createRouterComponents } from './router-components.ts';
import { closeRouter } from './router-shutdown.ts';
import { startRouterServers } from './router-servers.ts';
import { startRouterSources } from './router-sources.ts';
import type { RouterOptions } from './router-options.ts';

export interface RunningRouter {
  url: string;
  adminUrl: string;
  /** With `--tls-port`: `https://HOST:PORT` of the custom domains' TLS listener. */
  tlsUrl?: string;
  plane: DataPlane;
  /**
   * Stops. With `drainMs` (SIGTERM in a pod) the data plane first serves on that long, every
   * answer saying `Connection: close` (see @orrery/spec shutdown-drain.ts).
   */
  close(opts?: { drainMs?: number }): Promise<void>;
}

export async function startRouter(o: RouterOptions): Promise<RunningRouter> {
  const c = createRouterComponents(o);
  const sources = await startRouterSources(o, c);
  const servers = await startRouterServers(o, c, sources);

  // Ports picked by `0` are known only now: registry endpoints on them are refused too.
  c.guard.addSelfPorts([servers.port, servers.adminPort, ...(servers.tlsPort !== undefined ? [servers.tlsPort] : [])]);
  const names = refreshPlatformNames(c.guard, () => c.endpoints.recheckRegistry());
  c.endpoints.recheckRegistry();
  if (c.guard.entries.length) o.log(`registry endpoints on platform addresses are never used: ${c.guard.entries.join(', ')} (and this router's ports ${servers.port}, ${servers.adminPort})`);
  const statsLoop = startStatsLoop({ stats: c.stats, activator: c.activator, queues: c.queues, autoscaler: c.autoscaler, routerId: o.routerId, log: o.log, routed: (key) => c.plane.routes.revisions.has(key) });

  return {
    url: servers.url,
    adminUrl: servers.adminUrl,
    tlsUrl: servers.tlsUrl,
    plane: c.plane,
    close: ({ drainMs = 0 } = {}) => closeRouter({ timers: [statsLoop, names], sources, servers, sharedTables: o.sharedTables, pools: c.pools }, drainMs),
  };
}
