import { z } from 'zod';

/**
 * One-click membership actions on a RegistryCluster (console, CLI, admin API) are not spec edits
 * (GitOps owns spec): they are requests recorded on the resource as the annotation
 * `orrery.dev/requests`, a JSON list of `{id, action, member?}`. The operator's reconciler runs
 * each id once, in list order, and acknowledges it in `status.lastRequest` / `status.handledRequests`.
 * Writers keep only requests not yet handled, so a bounded `handledRequests` never lets an old
 * id run twice.
 */
export const REGISTRY_CLUSTER_REQUESTS_ANNOTATION = 'orrery.dev/requests';

export const REGISTRY_CLUSTER_REQUEST_ACTIONS = ['add-learner', 'promote', 'remove', 'transfer-leader', 'replace'] as const;
export type RegistryClusterRequestAction = (typeof REGISTRY_CLUSTER_REQUEST_ACTIONS)[number];

export const RegistryClusterRequestSchema = z.object({
  /** Unique per cluster; the reconciler remembers it so the request runs exactly once. */
  id: z.string().min(1).max(100),
  action: z.enum(REGISTRY_CLUSTER_REQUEST_ACTIONS),
  /** Member name (`<cluster>-<n>`) or etcd id in hex; optional for add-learner and transfer-leader. */
  member: z.string().min(1).max(100).optional(),
  /**
   * promote only: skip the catch-up rule (registry-learner-promotion.ts); etcd's own 90 % floor
   * still applies. Written by `registry.forcePromote` (admin).
   */
  force: z.boolean().optional(),
  /** Who asked (audit trail on the object itself); informational. */
  requestedBy: z.string().optional(),
  requestedAt: z.string().optional(),
});
export type RegistryClusterRequest = z.infer<typeof RegistryClusterRequestSchema>;

export const RegistryClusterRequestListSchema = z.array(RegistryClusterRequestSchema);

/** The requests in an annotation value, or the reason it cannot be read. */
export function parseRegistryClusterRequests(
  annotations: Record<string, string> | undefined,
): { ok: true; requests: RegistryClusterRequest[] } | { ok: false; message: string } {
  const raw = annotations?.[REGISTRY_CLUSTER_REQUESTS_ANNOTATION];
  if (!raw) return { ok: true, requests: [] };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, message: `${REGISTRY_CLUSTER_REQUESTS_ANNOTATION} is not JSON: write a list like [{"id":"r1","action":"transfer-leader","member":"reg-2"}]` };
  }
  const parsed = RegistryClusterRequestListSchema.safeParse(json);
  if (!parsed.success) return { ok: false, message: `${REGISTRY_CLUSTER_REQUESTS_ANNOTATION}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
  return { ok: true, requests: parsed.data };
}
