/**
 * How to bring back a member whose etcd is not running (a crashed process, an operator restart):
 * pure, over what the backend holds and what the cluster answered.
 */
export interface MemberRef {
  name: string;
  peerURL: string;
}

export interface RestartInput {
  member: MemberRef;
  /** etcd wrote its WAL: it reads membership from there and ignores the initial-cluster flags. */
  hasData: boolean;
  /** Some member of this cluster has a WAL (so this is not an interrupted bootstrap). */
  anyData: boolean;
  /** Every member the backend holds. */
  local: MemberRef[];
  /** The members etcd lists (names may be empty for members not started yet); undefined when no member answered. */
  etcdMembers?: { name: string; peerURL?: string }[];
}

export type RestartPlan = { initialCluster: string; state: 'new' | 'existing' } | undefined;

const joinCluster = (members: { name: string; peerURL?: string }[], self: MemberRef) =>
  members
    .filter((x) => x.peerURL)
    .map((x) => `${x.peerURL === self.peerURL ? self.name : x.name}=${x.peerURL}`)
    .join(',');

export function planMemberRestart(i: RestartInput): RestartPlan {
  const known = i.etcdMembers?.some((x) => x.peerURL === i.member.peerURL);
  if (i.hasData) {
    // Do not resurrect a member etcd removed (its data would make it try to rejoin).
    if (i.etcdMembers && !known) return undefined;
    // The flags are ignored with a WAL, but give the whole cluster anyway: if the WAL is not
    // what the backend thinks, a joining etcd with only itself listed can never start.
    return { initialCluster: i.etcdMembers ? joinCluster(i.etcdMembers, i.member) : `${i.member.name}=${i.member.peerURL}`, state: 'existing' };
  }
  // Bootstrap (or a bootstrap interrupted before anything was written): all start as `new`.
  if (!i.etcdMembers && !i.anyData) return { initialCluster: i.local.map((x) => `${x.name}=${x.peerURL}`).join(','), state: 'new' };
  // Added with MemberAdd but its first start died before it wrote a WAL: join again.
  if (known) return { initialCluster: joinCluster(i.etcdMembers!, i.member), state: 'existing' };
  return undefined;
}
