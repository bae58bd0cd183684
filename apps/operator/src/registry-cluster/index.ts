export { RegistryClusterReconciler, type RegistryClusterReconcilerOptions } from './registry-cluster-reconciler.ts';
export { planMembership, learnerObservation, promotionOf, type MembershipStep, type ObservedMember, type PlanInput } from './plan-membership.ts';
export { parseRequests, decideRequest, nextRequest, REQUESTS_ANNOTATION, REQUEST_ACTIONS, type ClusterRequest, type RequestAction } from './plan-request.ts';
export { buildClusterStatus } from './cluster-status.ts';
export type { ClusterPlacement, MemberRef, RegistryApi, RegistryClusterBackend, RegistryMembers } from './registry-cluster-backend.ts';
