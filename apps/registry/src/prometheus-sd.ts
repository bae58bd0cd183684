import type { RegistryTargetGroup } from '@orrery/spec';
import type { Instance } from './model/instance.ts';
import { matchesFilter, type InstanceFilter } from './query/filter.ts';

/** One Prometheus HTTP SD target group, as defined in @orrery/spec. */
export type TargetGroup = RegistryTargetGroup;

export interface SdContext {
  region: string;
  clusterId: string;
  /** The registry's own public address, listed when includeSelf=true. */
  self?: { host: string; port: number };
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Prometheus HTTP SD target groups: one group per instance endpoint whose name or protocol
 * equals `endpoint` (default "metrics"), with the seed's label set.
 */
export function targetGroups(instances: Iterable<Instance>, filter: InstanceFilter, endpoint: string, ctx: SdContext, includeSelf: boolean): TargetGroup[] {
  const groups: TargetGroup[] = [];
  for (const inst of instances) {
    if (!matchesFilter(filter, inst)) continue;
    const ep = inst.endpoints.find((e) => e.name === endpoint) ?? inst.endpoints.find((e) => e.protocol === endpoint);
    if (!ep) continue;
    groups.push({
      targets: [hostPort(ep.host, ep.port)],
      labels: {
        namespace: inst.namespace,
        service: inst.service,
        instance_id: inst.instanceId,
        region: ctx.region,
        zone: inst.zone,
        cluster_id: ctx.clusterId,
        target_kind: 'service_instance',
        __scheme__: ep.protocol === 'https' ? 'https' : 'http',
        __metrics_path__: ep.path ?? '/metrics',
      },
    });
  }
  if (includeSelf && ctx.self) {
    groups.push({
      targets: [hostPort(ctx.self.host, ctx.self.port)],
      labels: {
        namespace: filter.namespace,
        service: 'orrery.platform.registry.orrery-registry.api',
        instance_id: hostPort(ctx.self.host, ctx.self.port),
        region: ctx.region,
        zone: '',
        cluster_id: ctx.clusterId,
        target_kind: 'registry_node',
        __scheme__: 'http',
        __metrics_path__: '/metrics',
      },
    });
  }
  return groups;
}
