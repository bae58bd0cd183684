export { EtcdCluster, memberIdHex, type EtcdClusterOptions, type EtcdMember, type MemberState, type MemberStatus } from './cluster.ts';
export { etcdVersion, preferredEtcdBin } from './etcd-bin.ts';
export { killOnExit } from './kill-on-exit.ts';
export { etcdMemberArgs, type EtcdMemberFlags } from './member-args.ts';
export { NetnsNetwork, type NetnsHost } from './netns-network.ts';
export { removeLeftoverNetworks, ourLinks, ourNamespaces } from './netns-leftovers.ts';
export { noRetryClient } from './no-retry.ts';
export { freePort, freePorts } from './ports.ts';
export { waitFor } from './wait.ts';
