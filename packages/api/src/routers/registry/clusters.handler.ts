import type { RegistryCluster } from '@orrery/spec';
import { storeCall } from '../../errors.ts';
import { registryClusterHealth } from '../../health/health-from-conditions.ts';
import { protectedProcedure } from '../../trpc.ts';
import { ListClustersInput } from './clusters.schema.ts';

export const clusters = protectedProcedure('viewer', 'RegistryClusters from the store: health, desired voters, leader, member counts, conditions.')
  .input(ListClustersInput)
  .query(async ({ ctx, input }) => {
    const r = await storeCall(() => ctx.store.list('RegistryCluster', { namespace: input.namespace }));
    const items = (r.items as RegistryCluster[]).map((c) => {
      const members = c.status?.members ?? [];
      return {
        namespace: c.metadata.namespace,
        name: c.metadata.name,
        ...registryClusterHealth(c),
        resourceVersion: c.metadata.resourceVersion,
        replicas: c.spec.replicas,
        leader: c.status?.leader ?? null,
        voters: members.filter((m) => m.role === 'voter').length,
        learners: members.filter((m) => m.role === 'learner').length,
        healthy: members.filter((m) => m.health === 'healthy').length,
        endpoint: c.status?.endpoint ?? null,
        conditions: c.status?.conditions ?? [],
      };
    });
    return { items, resourceVersion: r.resourceVersion };
  });
