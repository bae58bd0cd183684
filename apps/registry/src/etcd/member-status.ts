import type { Etcd3 } from 'etcd3';
import { memberIdHex as hex, noRetryClient } from '@orrery/etcdcluster';

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

/**
 * Runs `fn` on a client of one member only (never a balanced pool, never retried: a paused member
 * must cost at most `timeoutMs`), closing it afterwards. Throws what the calls threw.
 */
export async function withMember<T>(endpoint: string, timeoutMs: number, fn: (client: Etcd3) => Promise<T>): Promise<T> {
  const client = noRetryClient(endpoint, timeoutMs);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/** The member's maintenance Status, ids in hex. */
export async function readMemberStatus(client: Etcd3, endpoint: string): Promise<MemberStatusAnswer> {
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
}

/** Asks one member for its status over a connection of its own. */
export function memberStatus(endpoint: string, timeoutMs: number): Promise<MemberStatusAnswer> {
  return withMember(endpoint, timeoutMs, (client) => readMemberStatus(client, endpoint));
}

/** The first client URL of a member (by hex id) in the member list this client's member gives. */
export async function memberClientUrl(client: Etcd3, memberId: string): Promise<string | undefined> {
  const list = await client.cluster.memberList({});
  return list.members.find((m) => hex(m.ID) === memberId)?.clientURLs[0];
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
