import { validate, type Resource, type ResourceKind } from '@orrery/spec';
import type { ApiContext } from '../context.ts';
import { badRequest, specIssues, storeCall } from '../errors.ts';
import type { AuditNote } from '../trpc.ts';

/**
 * The one apply path of the API (functions.applyManifest, resources.applyManifest): validate like
 * the webhook, default the namespace, read the object before, apply with optimistic
 * concurrency, and note before/after in the audit row. The caller has checked `kind`.
 */
export async function applyValidated(
  ctx: ApiContext & { audit: AuditNote },
  kind: ResourceKind,
  manifest: Record<string, unknown>,
  resourceVersion: string | undefined,
): Promise<{ saved: Resource; outcome: 'created' | 'configured' | 'unchanged' }> {
  const errors = validate(manifest);
  if (errors.length) throw badRequest(`the ${kind} is invalid: ${errors[0]!.message}`, specIssues(errors, 'manifest'));
  const meta = manifest.metadata as { namespace?: string; name: string };
  const namespace = meta.namespace ?? 'default';
  const before = await storeCall(() => ctx.store.get(kind, namespace, meta.name));
  const saved = await storeCall(() => ctx.store.apply({ ...manifest, metadata: { ...meta, namespace } }, { resourceVersion }));
  const outcome = !before ? 'created' : before.metadata.resourceVersion === saved.metadata.resourceVersion ? 'unchanged' : 'configured';
  ctx.audit.before = before ? { generation: before.metadata.generation, resourceVersion: before.metadata.resourceVersion } : null;
  ctx.audit.after = { outcome, generation: saved.metadata.generation, resourceVersion: saved.metadata.resourceVersion };
  return { saved, outcome };
}
