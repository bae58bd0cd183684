import { noRetryClient } from '@orrery/etcdcluster';

/** What one etcd member says about itself and the cluster (maintenance Status), ids in hex. */
export interface MemberStatusAnswer {
  endpoint: string;
  memberId: string;
  clusterId: string;
  /** The leader this member follows; undefined while it knows none. */
  leaderId?: string;
  raftTerm: number;
  raftIndex: number;
  raftAppliedIndex: number;
  dbSize: number;
  dbSizeInUse: number;
  version: string;
  isLearner: boolean;
  errors: string[];
}

const hex = (decimal: string): string => BigInt(decimal).toString(16);

/**
 * Asks one member directly (never through a balanced pool, never retried: a paused member must
 * cost at most `timeoutMs`). Throws what the call threw.
 */
export async function memberStatus(endpoint: string, timeoutMs: number): Promise<MemberStatusAnswer> {
  const client = noRetryClient(endpoint, timeoutMs);
  try {
    const s = await client.maintenance.status();
    return {
      endpoint,
      memberId: hex(s.header.member_id),
      clusterId: hex(s.header.cluster_id),
      leaderId: s.leader && s.leader !== '0' ? hex(s.leader) : undefined,
      raftTerm: Number(s.raftTerm),
      raftIndex: Number(s.raftIndex),
      raftAppliedIndex: Number(s.raftAppliedIndex),
      dbSize: Number(s.dbSize),
      dbSizeInUse: Number(s.dbSizeInUse),
      version: s.version,
      isLearner: Boolean(s.isLearner),
      errors: s.errors ?? [],
    };
  } finally {
    client.close();
  }
}

/** The first client URL of a member (by hex id) in the member list one endpoint gives. */
export async function memberClientUrl(endpoint: string, memberId: string, timeoutMs: number): Promise<string | undefined> {
  const client = noRetryClient(endpoint, timeoutMs);
  try {
    const list = await client.cluster.memberList({});
    return list.members.find((m) => hex(m.ID) === memberId)?.clientURLs[0];
  } finally {
    client.close();
  }
}

/**
 * The leader as the members see it: the one named by the answer with the highest term. A paused
 * and resumed old leader may still name itself for a moment; the higher term of the others wins.
 */
export function leaderByHighestTerm(answers: ReadonlyArray<Pick<MemberStatusAnswer, 'leaderId' | 'raftTerm'> | undefined>): string | undefined {
  let best: { leaderId: string; raftTerm: number } | undefined;
  for (const a of answers) if (a?.leaderId && (!best || a.raftTerm > best.raftTerm)) best = { leaderId: a.leaderId, raftTerm: a.raftTerm };
  return best?.leaderId;
}
