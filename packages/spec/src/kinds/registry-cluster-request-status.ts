/**
 * Progress of one RegistryCluster request (`orrery.dev/requests`, see registry-cluster-requests.ts)
 * as its sender follows it: the console's registry page and `orrery registry` both poll
 * `registry.members` and ask this where the request stands, so they say the same thing.
 */

/** A request someone sent and now follows until the operator reports it done. */
export interface TrackedRegistryRequest {
  requestId: string;
  /** What was asked, in words ("promote registry-4"). */
  label: string;
  /** When the mutation answered (ms epoch): cluster data older than this cannot know the request. */
  sentAt: number;
}

/** The part of a cluster's members view (API `registry.members`) progress depends on. */
export interface RegistryRequestView {
  pendingRequests: ReadonlyArray<{ id: string }>;
  lastRequest: { id: string; outcome: string; message: string } | null;
  conditions: ReadonlyArray<{ type: string; status: string; message?: string }>;
}

export type RegistryRequestStatus =
  | { phase: 'sent'; text: string }
  | { phase: 'pending'; position: number; text: string }
  | { phase: 'done'; outcome: string; text: string };

/**
 * Where a tracked request stands, from the cluster as last fetched. The operator acknowledges a
 * request in `lastRequest`; if a later request already replaced it there, the request is at least
 * no longer pending, which the sender can only say once it holds data fetched after sending.
 */
export function registryRequestStatus(req: TrackedRegistryRequest, view: RegistryRequestView | undefined, fetchedAt: number): RegistryRequestStatus {
  if (view?.lastRequest?.id === req.requestId) {
    return { phase: 'done', outcome: view.lastRequest.outcome, text: `${req.label}: ${view.lastRequest.outcome} — ${view.lastRequest.message}` };
  }
  const position = view?.pendingRequests.findIndex((r) => r.id === req.requestId) ?? -1;
  if (view && position >= 0) {
    const step = view.conditions.find((c) => c.type === 'Progressing' && c.status === 'True')?.message;
    const queue = position === 0 ? 'next in line' : `${position} request${position === 1 ? '' : 's'} ahead`;
    return { phase: 'pending', position, text: `${req.label}: waiting for the operator (${queue})${step ? `; ${step}` : ''}` };
  }
  if (!view || fetchedAt <= req.sentAt) return { phase: 'sent', text: `${req.label}: recorded as ${req.requestId}, waiting for the cluster to show it…` };
  return { phase: 'done', outcome: 'handled', text: `${req.label}: handled by the operator; a later request finished since (see the audit log for its outcome)` };
}
