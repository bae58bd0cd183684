/**
 * etcd's cluster and maintenance calls for one membership step. Each goes through a client that
 * never retries (a repeated MemberAdd would add two members); the reconciler observes again
 * before deciding anything else, which is the only retry there is.
 */
import { memberIdHex, noRetryClient } from '@orrery/etcdcluster';

const decimal = (hexId: string): string => BigInt(`0x${hexId}`).toString();

async function withClient<T>(url: string, fn: (c: ReturnType<typeof noRetryClient>) => Promise<T>, deadlineMs = 8000): Promise<T> {
  const client = noRetryClient(url, deadlineMs);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/** Adds a learner; answers its id and the `--initial-cluster` string it must start with. */
export async function addLearner(voterURL: string, name: string, peerURL: string): Promise<{ id: string; initialCluster: string }> {
  return withClient(voterURL, async (c) => {
    const res = await c.cluster.memberAdd({ peerURLs: [peerURL], isLearner: true });
    const initialCluster = res.members
      .map((m) => `${m.ID === res.member.ID ? name : m.name}=${m.peerURLs[0] ?? ''}`)
      .filter((x) => !x.startsWith('='))
      .join(',');
    return { id: memberIdHex(res.member.ID), initialCluster };
  });
}

export async function promoteMember(voterURL: string, id: string): Promise<void> {
  await withClient(voterURL, (c) => c.cluster.memberPromote({ ID: decimal(id) }));
}

export async function removeMember(voterURL: string, id: string): Promise<void> {
  await withClient(voterURL, (c) => c.cluster.memberRemove({ ID: decimal(id) }));
}

/** MoveLeader only works when sent to the current leader. */
export async function moveLeader(leaderURL: string, targetId: string): Promise<void> {
  await withClient(leaderURL, (c) => c.maintenance.moveLeader({ targetID: decimal(targetId) }));
}
