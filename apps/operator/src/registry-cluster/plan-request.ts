/**
 * One-click actions (console, CLI, admin API) are requests recorded on the resource as the
 * annotation `orrery.dev/requests`: a JSON list of `{id, action, member?}`. GitOps owns spec; a
 * request never edits spec; the reconciler runs each id once and acknowledges it in status
 * (`lastRequest`, `handledRequests`). Pure: parsing and deciding what a request means now.
 */
import {
  REGISTRY_CLUSTER_REQUEST_ACTIONS,
  REGISTRY_CLUSTER_REQUESTS_ANNOTATION,
  RegistryClusterRequestSchema,
  type LearnerPromotion,
  type RegistryClusterRequestAction,
} from '@orrery/spec';
import { lowestFreeOrdinal, memberName, removalKeepsQuorum, type MembershipStep, type ObservedMember } from './plan-membership.ts';

// The wire contract (annotation name, actions, entry schema) lives in @orrery/spec, shared with
// the API and the CLI that write requests.
export const REQUESTS_ANNOTATION = REGISTRY_CLUSTER_REQUESTS_ANNOTATION;
export const REQUEST_ACTIONS = REGISTRY_CLUSTER_REQUEST_ACTIONS;
export type RequestAction = RegistryClusterRequestAction;

export interface ClusterRequest {
  id: string;
  action: RequestAction;
  member?: string;
  /** promote only: skip the catch-up rule (admin, `registry.forcePromote`); etcd's own floor still applies. */
  force?: boolean;
}

/** Requests from the annotation; malformed entries are reported, never thrown. */
export function parseRequests(annotations: Record<string, string> | undefined): { requests: ClusterRequest[]; problems: string[] } {
  const raw = annotations?.[REQUESTS_ANNOTATION];
  if (!raw) return { requests: [], problems: [] };
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    return { requests: [], problems: [`${REQUESTS_ANNOTATION} is not JSON: write a list like [{"id":"r1","action":"transfer-leader","member":"reg-2"}]`] };
  }
  if (!Array.isArray(list)) return { requests: [], problems: [`${REQUESTS_ANNOTATION} must be a JSON list`] };
  const requests: ClusterRequest[] = [];
  const problems: string[] = [];
  for (const [i, item] of (list as unknown[]).entries()) {
    // Entry by entry, so one bad entry does not block the good ones.
    const r = RegistryClusterRequestSchema.safeParse(item);
    if (!r.success) {
      const id = (item as { id?: unknown } | null)?.id;
      problems.push(`request ${typeof id === 'string' && id ? id : `#${i + 1}`}: ${r.error.issues.map((x) => `${x.path.join('.') || 'entry'}: ${x.message}`).join('; ')} (actions: ${REQUEST_ACTIONS.join(', ')})`);
      continue;
    }
    requests.push({ id: r.data.id, action: r.data.action, member: r.data.member, ...(r.data.force ? { force: true } : {}) });
  }
  return { requests, problems };
}

/** The first request not yet handled (requests run in list order, one per reconcile). */
export function nextRequest(requests: readonly ClusterRequest[], handled: readonly string[] | undefined): ClusterRequest | undefined {
  const done = new Set(handled ?? []);
  return requests.find((r) => !done.has(r.id));
}

export type RequestDecision =
  /** `held`: added on top of spec.replicas; stays a learner until a promote request. */
  | { kind: 'add-learner'; name: string; ordinal: number; held: boolean }
  | { kind: 'transfer-leader'; from: string; to: string }
  | { kind: 'promote'; member: string }
  | { kind: 'remove'; member: string }
  | { kind: 'reject'; message: string };

/**
 * What a request means against the cluster as observed now, or why it cannot run. `planned` is
 * the planner's next step: when the planner is about to add a learner anyway (voters <
 * spec.replicas) an add-learner request runs that step; otherwise it adds a *held* learner on
 * top of spec.replicas (status.manualMembers) that waits for an explicit promote. `promotion` is
 * the promotion rule's verdict on the current learner (previous poll and this one): a promote
 * runs only when it holds, unless the request is forced.
 */
export function decideRequest(
  req: ClusterRequest,
  members: readonly ObservedMember[],
  planned?: MembershipStep,
  clusterName?: string,
  promotion?: LearnerPromotion,
): RequestDecision {
  const inCluster = members.filter((m) => m.inCluster);
  const leader = inCluster.find((m) => m.isLeader && m.healthy);
  const target = req.member === undefined ? undefined : inCluster.find((m) => m.name === req.member || m.id === req.member);
  if (req.member !== undefined && !target) return { kind: 'reject', message: `no member named ${req.member}` };
  switch (req.action) {
    case 'add-learner': {
      if (planned?.kind === 'add-learner') return { kind: 'add-learner', name: planned.name, ordinal: planned.ordinal, held: false };
      if (!leader) return { kind: 'reject', message: 'the cluster has no leader right now; retry once it has one' };
      const learner = inCluster.find((m) => m.role === 'learner');
      if (learner) return { kind: 'reject', message: `etcd allows one learner at a time and ${learner.name} is one: promote or remove it first` };
      if (!clusterName) return { kind: 'reject', message: 'cannot name a new member' };
      const ordinal = lowestFreeOrdinal(members);
      return { kind: 'add-learner', name: memberName(clusterName, ordinal), ordinal, held: true };
    }
    case 'transfer-leader': {
      if (!leader) return { kind: 'reject', message: 'the cluster has no leader right now; retry once it has one' };
      const to = target ?? inCluster.filter((m) => m.role === 'voter' && m.healthy && !m.isLeader).sort((a, b) => a.ordinal - b.ordinal)[0];
      if (!to) return { kind: 'reject', message: 'no other healthy voter to take leadership' };
      if (to.role !== 'voter') return { kind: 'reject', message: `${to.name} is a learner: promote it before moving leadership to it` };
      if (!to.healthy) return { kind: 'reject', message: `${to.name} is not healthy` };
      if (to.isLeader) return { kind: 'reject', message: `${to.name} is already the leader` };
      return { kind: 'transfer-leader', from: leader.name, to: to.name };
    }
    case 'promote': {
      if (!target) return { kind: 'reject', message: 'promote needs "member": the learner to promote' };
      if (target.role !== 'learner') return { kind: 'reject', message: `${target.name} already votes` };
      if (!req.force) {
        if (!promotion || promotion.member !== target.name) {
          return { kind: 'reject', message: `${target.name} has not been observed catching up yet; retry after the next poll` };
        }
        if (!promotion.ready) return { kind: 'reject', message: `${target.name} is not caught up: ${promotion.message} (an admin may force it: registry.forcePromote)` };
      }
      return { kind: 'promote', member: target.name };
    }
    case 'remove':
    case 'replace': {
      if (!target) return { kind: 'reject', message: `${req.action} needs "member": the member to take out` };
      if (!removalKeepsQuorum(inCluster, target)) {
        return { kind: 'reject', message: `removing ${target.name} would leave too few healthy voters for a quorum` };
      }
      if (target.isLeader && inCluster.filter((m) => m.role === 'voter').length === 1) {
        return { kind: 'reject', message: `${target.name} is the last voter` };
      }
      return { kind: 'remove', member: target.name };
    }
  }
}
