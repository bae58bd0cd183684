import { randomBytes } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import {
  REGISTRY_CLUSTER_REQUESTS_ANNOTATION,
  parseRegistryClusterRequests,
  type RegistryCluster,
  type RegistryClusterRequest,
  type RegistryClusterRequestAction,
} from '@orrery/spec';
import { StoreError } from '@orrery/store';
import type { ApiContext } from '../../context.ts';
import { notFound, storeCall } from '../../errors.ts';
import type { AuditNote } from '../../trpc.ts';
import { writableObject } from '../writable-object.ts';

/**
 * Records a one-click membership request as the `orrery.dev/requests` annotation the operator's
 * reconciler executes (spec stays GitOps-owned). Requests the reconciler already acknowledged
 * are dropped from the list, so the bounded `handledRequests` can never re-run an old id.
 * Retries a few times on a concurrent write.
 */
export async function recordRequest(
  ctx: ApiContext & { audit: AuditNote },
  ref: { namespace: string; cluster: string },
  action: RegistryClusterRequestAction,
  member: string | undefined,
  opts: {
    /** Refuses the request against the cluster as read (throws), e.g. a promote of a learner not caught up. */
    check?: (c: RegistryCluster) => void;
    /** promote only: the operator skips the catch-up rule (registry.forcePromote). */
    force?: boolean;
  } = {},
): Promise<{ requestId: string; pending: RegistryClusterRequest[] }> {
  const id = `r-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  for (let attempt = 0; ; attempt++) {
    const c = (await storeCall(() => ctx.store.get('RegistryCluster', ref.namespace, ref.cluster))) as RegistryCluster | undefined;
    if (!c) throw notFound(`RegistryCluster ${ref.namespace}/${ref.cluster}`);
    if (action !== 'add-learner' && member !== undefined && c.status?.members && !c.status.members.some((m) => m.name === member || m.id === member)) {
      throw new TRPCError({ code: 'NOT_FOUND', message: `RegistryCluster ${ref.cluster} has no member ${member}; see registry.members` });
    }
    opts.check?.(c);
    const parsed = parseRegistryClusterRequests(c.metadata.annotations);
    const handled = new Set(c.status?.handledRequests ?? []);
    // An unreadable annotation is replaced: the reconciler reports it as Degraded and runs nothing from it.
    const pending = (parsed.ok ? parsed.requests : []).filter((r) => !handled.has(r.id));
    const request: RegistryClusterRequest = {
      id,
      action,
      ...(member !== undefined ? { member } : {}),
      ...(opts.force ? { force: true } : {}),
      requestedBy: ctx.principal?.who,
      requestedAt: (ctx.now?.() ?? new Date()).toISOString(),
    };
    const next = writableObject(c) as { metadata: { annotations?: Record<string, string> } };
    next.metadata.annotations = { ...next.metadata.annotations, [REGISTRY_CLUSTER_REQUESTS_ANNOTATION]: JSON.stringify([...pending, request]) };
    try {
      await ctx.store.apply(next, { resourceVersion: c.metadata.resourceVersion });
    } catch (err) {
      if (err instanceof StoreError && err.code === 'conflict' && attempt < 3) continue;
      throw err instanceof StoreError ? await storeCall(() => Promise.reject(err)) : err;
    }
    ctx.audit.before = { pending: pending.map((r) => r.id), leader: c.status?.leader ?? null };
    ctx.audit.after = { requestId: id, action, member: member ?? null, ...(opts.force ? { force: true } : {}) };
    return { requestId: id, pending: [...pending, request] };
  }
}
