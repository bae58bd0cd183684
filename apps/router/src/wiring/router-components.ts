/**
 * Components, the second wiring step: every part of one router replica, built in dependency order
 * and not yet connected to anything outside the process (no watch, no listener, no timer).
 */
import type { RouterOptions } from './router-options.ts';
import { ActivatorModes } from '../activator/activator-modes.ts';
import { AutoscalerClient } from '../activator/autoscaler-client.ts';
import { ColdStart } from '../activator/cold-start.ts';
import { PoolSpecializer } from '../activator/pool-specializer.ts';
import { RevisionQueues } from '../activator/revision-queues.ts';
import { EndpointIndex } from '../admit/endpoint-index.ts';
import { DataPlane } from '../data-plane.ts';
import { EndpointGuard } from '../endpoints/endpoint-guard.ts';
import { EndpointUnion } from '../endpoints/endpoint-union.ts';
import { StickyHotKeys } from '../hot-keys/sticky-hot-keys.ts';
import { UpstreamPools } from '../proxy/upstream-pools.ts';
import { RouteTable } from '../routing/route-table.ts';
import { createRouterMetrics } from '../stats/metrics.ts';
import { RouterStats } from '../stats/router-stats.ts';
import { EndpointQuarantineTable } from '../tables/endpoint-quarantine-table.ts';
import { StickyOwnerTable } from '../tables/sticky-owner-table.ts';

export type RouterComponents = ReturnType<typeof createRouterComponents>;

export function createRouterComponents(o: RouterOptions) {
  const index = new EndpointIndex();
  const stats = new RouterStats();
  const hotKeys = new StickyHotKeys();
  // Without Redis the same tables serve this replica alone.
  const quarantine = o.sharedTables?.quarantine ?? new EndpointQuarantineTable();
  const owners = o.sharedTables?.owners ?? new StickyOwnerTable({ maxEntries: o.stickyOwnerEntries });
  const pools = new UpstreamPools({ connectTimeoutMs: o.connectTimeoutMs, keepAliveTimeoutMs: 4_000 });
  const queues = new RevisionQueues(o.queueDepth);
  const activator = new ActivatorModes();
  const autoscaler = o.autoscalerUrl ? new AutoscalerClient(o.autoscalerUrl, o.operatorToken) : undefined;

  // Registry endpoints pass the guard: never a platform component's address or the router's own.
  const guard = new EndpointGuard({
    platform: [...(o.platformEndpoints ?? []), ...[o.registryUrl, o.autoscalerUrl, o.executorUrl].filter((u): u is string => !!u)],
    selfPorts: [o.port, o.adminPort],
  });
  const endpoints = new EndpointUnion({ index, quarantine, pools, queues, guard, log: o.log });
  // Pool cold path: the executor's answer is admitted until the file or registry lists it.
  const specializer = o.executorUrl ? new PoolSpecializer({ executorUrl: o.executorUrl, token: o.operatorToken, onAddress: endpoints.admitAnswered, log: o.log }) : undefined;
  const coldStart = new ColdStart({ autoscaler, specializer, onAddress: endpoints.admitAnswered, routerId: o.routerId, log: o.log });

  const plane = new DataPlane(
    {
      index,
      quarantine,
      owners,
      stats,
      pools,
      queues,
      activator,
      domainSuffix: o.domain ? `.${o.domain.toLowerCase()}` : undefined,
      quarantineMs: o.quarantineMs,
      maxBodyBytes: o.maxBodyBytes,
      dialRetries: o.dialRetries,
      trustedProxies: o.trustedProxies,
      poke: coldStart.onWait,
      log: o.log,
      tracer: o.tracer,
      hotKeys,
    },
    RouteTable.empty(),
  );
  const metrics = createRouterMetrics(stats, () => queues.depths(), () => owners.usage());
  return { index, stats, hotKeys, quarantine, pools, queues, activator, autoscaler, guard, endpoints, plane, metrics };
}
