import { isResourceKind, RESOURCE_KINDS, validate } from '@orrery/spec';
import { badRequest, specIssues, storeCall } from '../../errors.ts';
import { auditedMutation } from '../../trpc.ts';
import { ApplyResourceInput } from './apply.schema.ts';

const targetOf = (raw: Record<string, unknown>) => {
  const m = raw.manifest as { kind?: string; metadata?: { namespace?: string; name?: string } } | undefined;
  return `${m?.kind ?? '?'}/${m?.metadata?.namespace ?? 'default'}/${m?.metadata?.name ?? '?'}`;
};

/** What `orrery apply` and GitOps tooling call: any kind except Revision (the operator makes those). */
export const apply = auditedMutation('operator', 'resources.applyManifest', 'Create or replace an object of any kind but Revision (validated like the webhook); answers created | configured | unchanged.', targetOf)
  .input(ApplyResourceInput)
  .mutation(async ({ ctx, input }) => {
    const kind = input.manifest.kind;
    if (!isResourceKind(kind)) throw badRequest(`unknown kind ${String(kind)}`, [{ path: 'manifest.kind', message: `must be one of ${RESOURCE_KINDS.join(', ')}` }]);
    if (kind === 'Revision') throw badRequest('Revisions are immutable and made by the operator: apply the Function instead', [{ path: 'manifest.kind', message: 'Revision cannot be applied' }]);
    const errors = validate(input.manifest);
    if (errors.length) throw badRequest(`the ${kind} is invalid: ${errors[0]!.message}`, specIssues(errors, 'manifest'));
    const meta = input.manifest.metadata as { namespace?: string; name: string };
    const manifest = { ...input.manifest, metadata: { ...meta, namespace: meta.namespace ?? 'default' } };
    const before = await storeCall(() => ctx.store.get(kind, manifest.metadata.namespace, meta.name));
    const saved = await storeCall(() => ctx.store.apply(manifest, { resourceVersion: input.resourceVersion }));
    const outcome = !before ? 'created' : before.metadata.resourceVersion === saved.metadata.resourceVersion ? 'unchanged' : 'configured';
    ctx.audit.before = before ? { generation: before.metadata.generation, resourceVersion: before.metadata.resourceVersion } : null;
    ctx.audit.after = { outcome, generation: saved.metadata.generation, resourceVersion: saved.metadata.resourceVersion };
    return { outcome, object: saved };
  });
