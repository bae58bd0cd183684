/**
 * One look at the cluster: etcd's member list (asked of each of our members in turn, read-only)
 * plus every member's own status, answered directly (never through a load-balanced pool).
 */
import { memberIdHex, noRetryClient } from '@orrery/etcdcluster';

export interface EtcdMemberView {
  id: string;
  name: string;
  peerURL?: string;
  clientURL?: string;
  isLearner: boolean;
}

export interface EtcdStatusView {
  leaderId?: string;
  raftTerm: number;
  raftIndex: number;
  raftAppliedIndex: number;
  dbSize: number;
  isLearner: boolean;
}

export interface ClusterObservation {
  /** undefined when no member answered the member list. */
  members?: EtcdMemberView[];
  /** By client URL. */
  statuses: Map<string, EtcdStatusView>;
  leaderId?: string;
}

export async function memberList(endpoints: readonly string[], deadlineMs = 2500): Promise<EtcdMemberView[] | undefined> {
  for (const url of endpoints) {
    const client = noRetryClient(url, deadlineMs);
    try {
      const res = await client.cluster.memberList({ linearizable: true });
      return res.members.map((m) => ({
        id: memberIdHex(m.ID),
        name: m.name,
        peerURL: m.peerURLs[0],
        clientURL: m.clientURLs[0],
        isLearner: Boolean(m.isLearner),
      }));
    } catch {
      // a learner or a down member: ask the next one
    } finally {
      client.close();
    }
  }
  return undefined;
}

export async function memberStatus(url: string, deadlineMs = 2000): Promise<EtcdStatusView | undefined> {
  const client = noRetryClient(url, deadlineMs);
  try {
    const s = await client.maintenance.status();
    return {
      leaderId: s.leader && s.leader !== '0' ? memberIdHex(s.leader) : undefined,
      raftTerm: Number(s.raftTerm),
      raftIndex: Number(s.raftIndex),
      raftAppliedIndex: Number(s.raftAppliedIndex),
      dbSize: Number(s.dbSize),
      isLearner: Boolean(s.isLearner),
    };
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}

export async function observeCluster(clientURLs: readonly string[]): Promise<ClusterObservation> {
  const [members, statusList] = await Promise.all([
    memberList(clientURLs),
    Promise.all(clientURLs.map(async (u) => [u, await memberStatus(u)] as const)),
  ]);
  const statuses = new Map<string, EtcdStatusView>();
  for (const [u, s] of statusList) if (s) statuses.set(u, s);
  // The leader is who the answering member with the highest term says it is.
  const best = [...statuses.values()].filter((s) => s.leaderId).sort((a, b) => b.raftTerm - a.raftTerm)[0];
  return { members, statuses, leaderId: best?.leaderId };
}
