import { isResourceKind, RESOURCE_KINDS } from '@orrery/spec';
import { badRequest } from '../../errors.ts';
import { applyValidated } from '../apply-validated.ts';
import { auditedMutation } from '../../trpc.ts';
import { ApplyResourceInput } from './apply.schema.ts';

const targetOf = (raw: Record<string, unknown>) => {
  const m = raw.manifest as { kind?: string; metadata?: { namespace?: string; name?: string } } | undefined;
  return `${m?.kind ?? '?'}/${m?.metadata?.namespace ?? 'default'}/${m?.metadata?.name ?? '?'}`;
};

/** What `orrery apply` and GitOps tooling call: any kind except Revision (the operator makes those). */
export const apply = auditedMutation('operator', 'resources.applyManifest', "Create or replace an object of any kind but Revision (validated like the webhook); answers created | configured | unchanged. A write that asks for an action needs that action's role: registry requests in the orrery.dev/requests annotation (remove and transfer-leader: admin), a RegistryCluster's replicas (admin, as registry.scale) or replaceUnhealthyAfter (admin, as registry.remove).", targetOf)
  .input(ApplyResourceInput)
  .mutation(async ({ ctx, input }) => {
    const kind = input.manifest.kind;
    if (!isResourceKind(kind)) throw badRequest(`unknown kind ${String(kind)}`, [{ path: 'manifest.kind', message: `must be one of ${RESOURCE_KINDS.join(', ')}` }]);
    if (kind === 'Revision') throw badRequest('Revisions are immutable and made by the operator: apply the Function instead', [{ path: 'manifest.kind', message: 'Revision cannot be applied' }]);
    const { saved, outcome } = await applyValidated(ctx, kind, input.manifest, input.resourceVersion, { force: input.force });
    return { outcome, object: saved };
  });
