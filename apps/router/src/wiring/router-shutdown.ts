/**
 * Shutdown, the last wiring step for one replica: with `drainMs` (SIGTERM in a pod) the data plane
 * first serves on that long, every answer saying Connection: close (see @orrery/spec
 * shutdown-drain.ts); then timers, watches, listeners, the shared tables and the upstream
 * connections stop, in that order.
 */
import type { SharedTables } from '../shared-tables.ts';
import type { UpstreamPools } from '../proxy/upstream-pools.ts';
import type { RouterServers } from './router-servers.ts';
import type { RouterSources } from './router-sources.ts';

export interface RouterParts {
  timers: Array<{ stop(): void }>;
  sources: RouterSources;
  servers: RouterServers;
  sharedTables: SharedTables | undefined;
  pools: UpstreamPools;
}

export async function closeRouter(p: RouterParts, drainMs: number): Promise<void> {
  if (drainMs > 0) {
    p.servers.startDrain();
    await new Promise((r) => setTimeout(r, drainMs));
  }
  for (const t of p.timers) t.stop();
  await p.sources.stop();
  await p.servers.close(drainMs > 0);
  await p.sharedTables?.stop();
  await p.pools.destroyAll();
}
