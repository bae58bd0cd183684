import { parseRegistryClusterRequests, type RegistryCluster } from '@orrery/spec';
import { notFound, storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { registryClusterHealth, registryMemberHealth } from '../../health/health-from-conditions.ts';
import { learnerVerdict } from './learner-verdict.ts';
import { membershipActions } from './membership-actions.ts';
import { ClusterMembersInput } from './members.schema.ts';

export const members = protectedProcedure('viewer', "A cluster's health and members as the operator last observed them (role, leader, term, indexes, lag, health, a learner's promotion verdict, each action's effect on quorum and why it must wait) and its pending requests.")
  .input(ClusterMembersInput)
  .query(async ({ ctx, input }) => {
    const c = (await storeCall(() => ctx.store.get('RegistryCluster', input.namespace, input.cluster))) as RegistryCluster | undefined;
    if (!c) throw notFound(`RegistryCluster ${input.namespace}/${input.cluster}`);
    const ms = c.status?.members ?? [];
    const leaderIndex = ms.find((m) => m.isLeader)?.raftIndex;
    const handled = new Set(c.status?.handledRequests ?? []);
    const parsed = parseRegistryClusterRequests(c.metadata.annotations);
    const actions = membershipActions(ms);
    return {
      health: registryClusterHealth(c),
      replicas: c.spec.replicas,
      quorum: actions.quorum,
      // Each action's effect on quorum (the confirmation dialog) and why it must wait, if it must.
      addLearner: actions.addLearner,
      leader: c.status?.leader ?? null,
      // Request-added members (held learners wait for a promote request; see docs/registry-clusters.md).
      manualMembers: c.status?.manualMembers ?? [],
      members: ms.map((m) => {
        // A learner: the promotion rule's verdict from the operator's last polls (registry.promote checks the same).
        const promotion = m.role === 'learner' ? learnerVerdict(c, m.name) : null;
        return {
          ...m,
          lag: leaderIndex !== undefined && m.raftAppliedIndex !== undefined ? Math.max(0, leaderIndex - m.raftAppliedIndex) : null,
          promotion,
          // `health` above is the operator's word; this is the badge the console shows for it.
          healthVerdict: registryMemberHealth(m),
          actions: actions.of(m, promotion),
        };
      }),
      pendingRequests: parsed.ok ? parsed.requests.filter((r) => !handled.has(r.id)) : [],
      lastRequest: c.status?.lastRequest ?? null,
      conditions: c.status?.conditions ?? [],
      resourceVersion: c.metadata.resourceVersion,
    };
  });
