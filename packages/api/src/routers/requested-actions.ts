import { REGISTRY_CLUSTER_REQUEST_ACTIONS, REGISTRY_CLUSTER_REQUESTS_ANNOTATION, RegistryClusterSpecSchema, type RegistryClusterRequestAction } from '@orrery/spec';

/**
 * An action a write causes besides storing the object: the procedure that asks for the same
 * thing directly (whose minimum role applies), what in the write causes it, and for whom.
 */
export interface RequestedAction {
  /** The procedure with the same effect, e.g. `registry.remove`. */
  action: string;
  /** What in the manifest causes it: `metadata.annotations["orrery.dev/requests"]`, `spec.replicas`, … */
  via: string;
  /** e.g. `remove reg-2 (request r-7)` or `3 → 5`. */
  detail?: string;
}

/** Kinds whose writes can ask for actions (their applies are checked against what they replace). */
export const ACTION_KINDS: ReadonlySet<string> = new Set(['RegistryCluster']);

/** The procedure whose role a registry request needs: the reconciler runs it with the same effect. */
export const REGISTRY_REQUEST_PROCEDURE: Record<RegistryClusterRequestAction, string> = {
  'add-learner': 'registry.addLearner',
  promote: 'registry.promote',
  remove: 'registry.remove',
  'transfer-leader': 'registry.transferLeader',
  // remove + add learner: as destructive as a removal.
  replace: 'registry.remove',
};

interface ObjectLike {
  metadata?: { annotations?: Record<string, unknown> };
  spec?: object;
  status?: object;
}

const field = (o: object | undefined, key: string): unknown => (o as Record<string, unknown> | undefined)?.[key];

interface LooseRequest {
  id: string;
  action: RegistryClusterRequestAction;
  member?: string;
  /** promote only: skips the catch-up rule, so it needs registry.forcePromote's role. */
  force?: boolean;
}

const VIA_REQUESTS = `metadata.annotations["${REGISTRY_CLUSTER_REQUESTS_ANNOTATION}"]`;

/**
 * Every entry of the annotation that names a known action, read leniently: the reconciler reads
 * entry by entry and runs the good ones, so a list with one broken entry must not hide the
 * others from this check. Anything that is not a JSON list yields nothing (the reconciler runs
 * nothing from it either).
 */
export function looseRegistryRequests(annotations: Record<string, unknown> | undefined): LooseRequest[] {
  const raw = annotations?.[REGISTRY_CLUSTER_REQUESTS_ANNOTATION];
  if (typeof raw !== 'string' || !raw) return [];
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  const out: LooseRequest[] = [];
  for (const item of list as unknown[]) {
    if (item === null || typeof item !== 'object') continue;
    const { id, action, member, force } = item as Record<string, unknown>;
    if (typeof action !== 'string' || !(REGISTRY_CLUSTER_REQUEST_ACTIONS as readonly string[]).includes(action)) continue;
    out.push({
      id: typeof id === 'string' ? id : JSON.stringify(id ?? null),
      action: action as RegistryClusterRequestAction,
      member: typeof member === 'string' ? member : undefined,
      ...(force === true ? { force: true } : {}),
    });
  }
  return out;
}

const requestKey = (r: LooseRequest) => JSON.stringify([r.id, r.action, r.member ?? null, r.force ?? false]);

/** The procedure a request needs: a forced promote is registry.forcePromote (admin). */
const procedureOf = (r: LooseRequest) => (r.action === 'promote' && r.force ? 'registry.forcePromote' : REGISTRY_REQUEST_PROCEDURE[r.action]);

/**
 * What applying `next` over `stored` (undefined = create) asks the platform to do beyond storing
 * it. Pure. For a RegistryCluster:
 * - each request in `orrery.dev/requests` that is new — not pending in the stored annotation with
 *   the same id, action and member, and not already handled — is the matching registry procedure;
 * - a different `spec.replicas` on an existing cluster is `registry.scale` (a manifest without
 *   it means the default, 3, as the store will save it);
 * - setting or changing `spec.replaceUnhealthyAfter` on an existing cluster lets the operator
 *   remove members by itself: `registry.remove` (unsetting it removes nothing).
 */
export function requestedActions(kind: string, stored: ObjectLike | undefined, next: ObjectLike): RequestedAction[] {
  if (kind !== 'RegistryCluster') return [];
  const out: RequestedAction[] = [];
  const pending = new Set(looseRegistryRequests(stored?.metadata?.annotations).map(requestKey));
  const handledList = field(stored?.status, 'handledRequests');
  const handled = new Set(Array.isArray(handledList) ? handledList.filter((x): x is string => typeof x === 'string') : []);
  for (const r of looseRegistryRequests(next.metadata?.annotations)) {
    if (pending.has(requestKey(r)) || handled.has(r.id)) continue;
    out.push({ action: procedureOf(r), via: VIA_REQUESTS, detail: `${r.action}${r.force ? ' (forced)' : ''}${r.member ? ` ${r.member}` : ''} (request ${r.id})` });
  }
  if (stored) {
    const before = field(stored.spec, 'replicas');
    // An invalid value is refused by validation later; the schema supplies the default.
    const after = RegistryClusterSpecSchema.shape.replicas.safeParse(field(next.spec, 'replicas'));
    if (after.success && after.data !== before) out.push({ action: 'registry.scale', via: 'spec.replicas', detail: `${String(before)} → ${after.data}` });
    const wasAfter = field(stored.spec, 'replaceUnhealthyAfter');
    const nowAfter = field(next.spec, 'replaceUnhealthyAfter');
    if (nowAfter !== undefined && nowAfter !== wasAfter) out.push({ action: 'registry.remove', via: 'spec.replaceUnhealthyAfter', detail: `${wasAfter === undefined ? 'unset' : JSON.stringify(wasAfter)} → ${JSON.stringify(nowAfter)} (the operator replaces unhealthy members by itself)` });
  }
  return out;
}
