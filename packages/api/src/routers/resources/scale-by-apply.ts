import { TRPCError } from '@trpc/server';
import { RegistryClusterSpecSchema, type RegistryCluster } from '@orrery/spec';
import { roleAllows } from '../../auth/roles.ts';
import type { ApiContext } from '../../context.ts';
import { storeCall } from '../../errors.ts';

/**
 * Applying a RegistryCluster whose `spec.replicas` differs from the stored one is `registry.scale`
 * by another door, so it needs the same role (admin): otherwise the operator role could still
 * change the quorum size. Creating a cluster, or applying it with the same count, stays operator.
 */
export async function refuseScaleByApply(ctx: ApiContext, manifest: Record<string, unknown>): Promise<void> {
  if (manifest.kind !== 'RegistryCluster' || (ctx.principal && roleAllows(ctx.principal.role, 'admin'))) return;
  const meta = manifest.metadata as { namespace?: string; name?: string } | undefined;
  if (!meta?.name) return; // validation reports it
  const stored = (await storeCall(() => ctx.store.get('RegistryCluster', meta.namespace ?? 'default', meta.name!))) as RegistryCluster | undefined;
  if (!stored) return;
  const wanted = RegistryClusterSpecSchema.shape.replicas.safeParse((manifest.spec as { replicas?: unknown } | undefined)?.replicas);
  if (!wanted.success || wanted.data === stored.spec.replicas) return;
  throw new TRPCError({
    code: 'FORBIDDEN',
    message: `role ${ctx.principal?.role ?? 'none'} may not change spec.replicas of RegistryCluster ${meta.name} (${stored.spec.replicas} → ${wanted.data}); it needs admin, like registry.scale`,
  });
}
