import { validate, type Resource, type ResourceKind } from '@orrery/spec';
import { StoreError } from '@orrery/store';
import type { ApiContext } from '../context.ts';
import { badRequest, fromStoreError, specIssues, storeCall } from '../errors.ts';
import type { AuditNote } from '../trpc.ts';
import { authorizeRequestedActions } from './action-policy.ts';
import { ACTION_KINDS, requestedActions } from './requested-actions.ts';

/**
 * The one apply path of the API (functions.applyManifest, resources.applyManifest): validate like
 * the webhook, default the namespace, read the object before, check the role of every action the
 * write asks for (action-policy.ts), apply with optimistic concurrency, and note before/after in
 * the audit row. The caller has checked `kind`.
 *
 * For kinds whose writes can ask for actions, the apply is pinned to the resourceVersion the
 * check read (unless the caller gave one), so the check always judged what the write replaces;
 * a concurrent change makes it read and check again (a few times, then CONFLICT).
 */
export async function applyValidated(
  ctx: ApiContext & { audit: AuditNote },
  kind: ResourceKind,
  manifest: Record<string, unknown>,
  resourceVersion: string | undefined,
  opts: { force?: boolean } = {},
): Promise<{ saved: Resource; outcome: 'created' | 'configured' | 'unchanged' }> {
  const errors = validate(manifest);
  if (errors.length) throw badRequest(`the ${kind} is invalid: ${errors[0]!.message}`, specIssues(errors, 'manifest'));
  const meta = manifest.metadata as { namespace?: string; name: string };
  const namespace = meta.namespace ?? 'default';
  for (let attempt = 0; ; attempt++) {
    const before = await storeCall(() => ctx.store.get(kind, namespace, meta.name));
    authorizeRequestedActions(ctx, `${kind} ${meta.name}`, requestedActions(kind, before, manifest));
    const pinned = resourceVersion ?? (ACTION_KINDS.has(kind) ? before?.metadata.resourceVersion : undefined);
    let saved: Resource;
    try {
      saved = await ctx.store.apply({ ...manifest, metadata: { ...meta, namespace } }, { resourceVersion: pinned, ...(opts.force ? { force: true } : {}) });
    } catch (err) {
      // A field another manager owns does not go away by reading again: only a stale pin does.
      const ownedElsewhere = err instanceof StoreError && err.details?.some((d) => d.reason === 'field_manager_conflict');
      if (err instanceof StoreError && err.code === 'conflict' && !ownedElsewhere && resourceVersion === undefined && pinned !== undefined && attempt < 3) continue;
      throw fromStoreError(err);
    }
    const outcome = !before ? 'created' : before.metadata.resourceVersion === saved.metadata.resourceVersion ? 'unchanged' : 'configured';
    ctx.audit.before = before ? { generation: before.metadata.generation, resourceVersion: before.metadata.resourceVersion } : null;
    ctx.audit.after = { outcome, generation: saved.metadata.generation, resourceVersion: saved.metadata.resourceVersion };
    return { saved, outcome };
  }
}
