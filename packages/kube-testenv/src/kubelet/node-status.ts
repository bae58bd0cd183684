/**
 * The Node object, its status and its Lease as the process kubelet writes them (wire JSON).
 */

export interface NodeFacts {
  name: string;
  ip: string;
  podCIDR: string;
  kubeletVersion: string;
  machineID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  architecture: string;
}

/** What the node offers: the pods are processes of this machine, so these are nominal. */
export const NODE_CAPACITY = { cpu: '2', memory: '24Gi', pods: '110' } as const;

export const LEASE_DURATION_SECONDS = 40;
export const LEASE_NAMESPACE = 'kube-node-lease';

export function nodeObject(f: NodeFacts): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: f.name,
      labels: {
        'kubernetes.io/hostname': f.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': f.architecture,
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': f.architecture,
      },
      annotations: { 'orrery.dev/process-kubelet': 'pods run as local processes (packages/kube-testenv/README.md)' },
    },
    spec: { podCIDR: f.podCIDR, podCIDRs: [f.podCIDR] },
  };
}

type Condition = { type: string; status: string; reason: string; message: string; lastHeartbeatTime: string; lastTransitionTime: string };

const CONDITIONS: Array<Omit<Condition, 'lastHeartbeatTime' | 'lastTransitionTime'>> = [
  { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
  { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
  { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
  { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'process kubelet is posting ready status' },
];

/**
 * The node's status: always Ready (the kubelet is up when it writes this), a fresh
 * lastHeartbeatTime on every condition, lastTransitionTime kept while the status holds.
 */
export function nodeStatus(f: NodeFacts, previous: Array<{ type: string; status: string; lastTransitionTime?: string }>, now: string): Record<string, unknown> {
  const conditions: Condition[] = CONDITIONS.map((c) => {
    const before = previous.find((p) => p.type === c.type);
    return { ...c, lastHeartbeatTime: now, lastTransitionTime: before?.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : now };
  });
  return {
    capacity: { ...NODE_CAPACITY },
    allocatable: { ...NODE_CAPACITY },
    conditions,
    addresses: [
      { type: 'InternalIP', address: f.ip },
      { type: 'Hostname', address: f.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
    nodeInfo: {
      machineID: f.machineID,
      systemUUID: f.machineID,
      bootID: f.bootID,
      kernelVersion: f.kernelVersion,
      osImage: f.osImage,
      containerRuntimeVersion: 'process-kubelet://0.1.0',
      kubeletVersion: f.kubeletVersion,
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: f.architecture,
    },
  };
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits (the API server insists). */
export const microTime = (ms: number = Date.now()): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export function leaseObject(node: string, nodeUID: string | undefined, now: string): Record<string, unknown> {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: node,
      namespace: LEASE_NAMESPACE,
      // Owned by the Node, as a kubelet's Lease is: deleting the Node removes it.
      ...(nodeUID ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node, uid: nodeUID }] } : {}),
    },
    spec: { holderIdentity: node, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime: now },
  };
}
