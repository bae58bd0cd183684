/** The one node of the test cluster, run by the process kubelet. */
export const NODE_NAME = 'process-node-1';

/**
 * The addresses of the test cluster, in one place. Kubernetes refuses loopback addresses in
 * Endpoints and EndpointSlices, so the control plane and every pod get addresses of their own:
 * the host side on a dummy interface, each pod in its own network namespace.
 */
export const NETWORK = {
  /** Port-less bridge on the host that carries the node's address (these kernels have no 'dummy' links). */
  hostInterface: 'okube0',
  /** The node's InternalIP: the API server advertises it, kube-proxy binds its NodePorts to it. */
  hostAddress: '10.245.0.1',
  /** Pod addresses: every pod of the process kubelet gets one /32 from here. */
  podCIDR: '10.244.0.0/16',
  /** The node's own pod range (spec.podCIDR); addresses are handed out from .2 upwards. */
  nodePodCIDR: '10.244.1.0/24',
  nodePodPrefix: '10.244.1.',
  /** ClusterIPs; the `kubernetes` Service takes the first one. */
  serviceCIDR: '10.96.0.0/16',
  kubernetesServiceIP: '10.96.0.1',
  /** Link-local gateway every pod routes through (proxy ARP on the host end of its veth). */
  podGateway: '169.254.1.1',
  /** Network namespaces and host veth ends carry this prefix, so stale ones can be found. */
  namespacePrefix: 'okube-',
  vethPrefix: 'okv',
  clusterDomain: 'cluster.local',
} as const;
