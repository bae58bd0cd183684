/** What one etcd member is started with (plain `http://` URLs on loopback or a pod network). */
export interface EtcdMemberFlags {
  name: string;
  dataDir: string;
  clientURL: string;
  peerURL: string;
  /** `name=peerURL,…` of every member the new member should know; only read on first start. */
  initialCluster: string;
  state: 'new' | 'existing';
  token: string;
  heartbeatMs: number;
  electionMs: number;
}

/** The etcd command line of a member: listens where it advertises, warn-level zap logs. */
export function etcdMemberArgs(m: EtcdMemberFlags): string[] {
  return [
    '--name', m.name,
    '--data-dir', m.dataDir,
    '--listen-client-urls', m.clientURL,
    '--advertise-client-urls', m.clientURL,
    '--listen-peer-urls', m.peerURL,
    '--initial-advertise-peer-urls', m.peerURL,
    '--initial-cluster', m.initialCluster,
    '--initial-cluster-state', m.state,
    '--initial-cluster-token', m.token,
    '--heartbeat-interval', String(m.heartbeatMs),
    '--election-timeout', String(m.electionMs),
    '--logger', 'zap',
    '--log-level', 'warn',
  ];
}
