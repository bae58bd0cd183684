import type { V1Container, V1Pod } from '@kubernetes/client-node';

/**
 * Pod status as the kubelet reports it (pkg/kubelet generateAPIPodStatus, getPhase and
 * pkg/kubelet/status's condition generators), computed from what the process kubelet knows
 * about each container. Times are RFC 3339 strings: this is the wire form sent to the API server.
 */

export interface TerminatedState {
  exitCode: number;
  reason: string;
  message?: string;
  startedAt: string;
  finishedAt: string;
  containerID: string;
}

export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | { terminated: TerminatedState };

/** One container as the kubelet tracks it. */
export interface ContainerRecord {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  state: ContainerState;
  lastTerminated?: TerminatedState;
  restartCount: number;
  ready: boolean;
  started: boolean;
}

export interface PodRuntimeView {
  hostIP: string;
  podIP?: string;
  startTime?: string;
  /** The network sandbox exists and has its address. */
  sandboxReady: boolean;
  initContainers: ContainerRecord[];
  containers: ContainerRecord[];
  /** No container of this pod will run again (it was deleted, or finished under its restartPolicy). */
  terminal: boolean;
}

export interface ConditionWire {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: null;
  observedGeneration?: number;
}

export interface ContainerStatusWire {
  name: string;
  state: ContainerState;
  lastState: { terminated?: TerminatedState };
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started: boolean;
}

export interface PodStatusWire {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions: ConditionWire[];
  hostIP: string;
  hostIPs: Array<{ ip: string }>;
  podIP?: string;
  podIPs?: Array<{ ip: string }>;
  startTime?: string;
  initContainerStatuses?: ContainerStatusWire[];
  containerStatuses: ContainerStatusWire[];
  observedGeneration?: number;
  [other: string]: unknown;
}

const KUBELET_CONDITIONS = new Set(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']);

const terminatedOf = (c: ContainerRecord) => ('terminated' in c.state ? c.state.terminated : undefined);
const isRunning = (c: ContainerRecord) => 'running' in c.state;
const isWaiting = (c: ContainerRecord) => 'waiting' in c.state;

/** The kubelet's getPhase. */
export function podPhase(restartPolicy: string, rt: PodRuntimeView): PodStatusWire['phase'] {
  let pendingInit = 0;
  let failedInit = 0;
  for (const c of rt.initContainers) {
    const t = terminatedOf(c);
    if (isRunning(c)) pendingInit++;
    else if (t) {
      if (t.exitCode !== 0) failedInit++;
    } else if (isWaiting(c)) {
      if (c.lastTerminated) {
        if (c.lastTerminated.exitCode !== 0) failedInit++;
      } else pendingInit++;
    } else pendingInit++;
  }
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of rt.containers) {
    const t = terminatedOf(c);
    if (isRunning(c)) running++;
    else if (t) {
      stopped++;
      if (t.exitCode === 0) succeeded++;
    } else if (c.lastTerminated) stopped++;
    else waiting++;
  }
  if (failedInit > 0 && restartPolicy === 'Never') return 'Failed';
  const anyRegularStarted = rt.containers.some((c) => isRunning(c) || terminatedOf(c) || c.lastTerminated);
  if ((pendingInit > 0 && !anyRegularStarted) || waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (rt.terminal) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

const goList = (names: string[]) => `[${names.join(' ')}]`;

function initializedCondition(spec: { initContainers?: V1Container[] }, rt: PodRuntimeView, phase: string): Omit<ConditionWire, 'type'> {
  if (rt.containers.some((c) => isRunning(c) || terminatedOf(c) || c.lastTerminated)) return { status: 'True' };
  const incomplete: string[] = [];
  for (const ic of spec.initContainers ?? []) {
    const rec = rt.initContainers.find((c) => c.name === ic.name);
    const t = rec && terminatedOf(rec);
    if (!t || t.exitCode !== 0) incomplete.push(ic.name);
  }
  if (phase === 'Succeeded') return { status: 'True', reason: 'PodCompleted' };
  if (incomplete.length) return { status: 'False', reason: 'ContainersNotInitialized', message: `containers with incomplete status: ${goList(incomplete)}` };
  return { status: 'True' };
}

function containersReadyCondition(rt: PodRuntimeView, phase: string): Omit<ConditionWire, 'type'> {
  if (phase === 'Succeeded') return { status: 'False', reason: 'PodCompleted' };
  if (phase === 'Failed') return { status: 'False', reason: 'PodFailed' };
  const unready = rt.containers.filter((c) => !c.ready).map((c) => c.name);
  if (unready.length) return { status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: ${goList(unready)}` };
  return { status: 'True' };
}

function readyCondition(pod: V1Pod, containersReady: Omit<ConditionWire, 'type'>): Omit<ConditionWire, 'type'> {
  if (containersReady.status !== 'True') return containersReady;
  const unready: string[] = [];
  for (const gate of pod.spec?.readinessGates ?? []) {
    const c = pod.status?.conditions?.find((x) => x.type === gate.conditionType);
    if (!c) unready.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    else if (c.status !== 'True') unready.push(`the status of pod readiness gate "${gate.conditionType}" is not "True", but ${c.status}`);
  }
  if (unready.length) return { status: 'False', reason: 'ReadinessGatesNotReady', message: unready.join(', ') };
  return { status: 'True' };
}

const wireStatus = (c: ContainerRecord): ContainerStatusWire => ({
  name: c.name,
  state: c.state,
  lastState: c.lastTerminated ? { terminated: c.lastTerminated } : {},
  ready: c.ready,
  restartCount: c.restartCount,
  image: c.image,
  imageID: c.imageID,
  ...(c.containerID ? { containerID: c.containerID } : {}),
  started: c.started,
});

/**
 * The pod's status to write: the kubelet's fields computed from `rt`; conditions other components
 * own and fields the kubelet does not write (qosClass, nominatedNodeName, …) kept from `pod`;
 * a condition's lastTransitionTime kept while its status does not change.
 */
export function computePodStatus(pod: V1Pod, rt: PodRuntimeView, now: string): PodStatusWire {
  const old = (pod.status ?? {}) as Record<string, unknown> & { conditions?: ConditionWire[]; phase?: string };
  const restartPolicy = pod.spec?.restartPolicy ?? 'Always';
  let phase = podPhase(restartPolicy, rt);
  // A terminal phase is final: the API server refuses to leave it, and so does the kubelet.
  if (old.phase === 'Succeeded' || old.phase === 'Failed') phase = old.phase;
  const generation = pod.metadata?.generation;
  const containersReady = containersReadyCondition(rt, phase);
  const mine: ConditionWire[] = [
    { type: 'PodReadyToStartContainers', status: rt.sandboxReady ? 'True' : 'False' },
    { type: 'Initialized', ...initializedCondition(pod.spec ?? {}, rt, phase) },
    { type: 'Ready', ...readyCondition(pod, containersReady) },
    { type: 'ContainersReady', ...containersReady },
    { type: 'PodScheduled', status: 'True' },
  ];
  const previous = new Map((old.conditions ?? []).map((c) => [c.type, c]));
  const conditions: ConditionWire[] = (old.conditions ?? []).filter((c) => !KUBELET_CONDITIONS.has(c.type));
  for (const c of mine) {
    const before = previous.get(c.type);
    conditions.push({
      ...c,
      lastProbeTime: null,
      lastTransitionTime: before && before.status === c.status && before.lastTransitionTime ? new Date(before.lastTransitionTime).toISOString().replace(/\.\d{3}Z$/, 'Z') : now,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    });
  }
  const { conditions: _c, containerStatuses: _cs, initContainerStatuses: _ics, podIP: _pi, podIPs: _pis, ...kept } = old;
  const status: PodStatusWire = {
    ...kept,
    phase,
    conditions,
    hostIP: rt.hostIP,
    hostIPs: [{ ip: rt.hostIP }],
    ...(rt.podIP ? { podIP: rt.podIP, podIPs: [{ ip: rt.podIP }] } : {}),
    ...(rt.startTime ? { startTime: rt.startTime } : {}),
    ...(rt.initContainers.length ? { initContainerStatuses: rt.initContainers.map(wireStatus) } : {}),
    containerStatuses: rt.containers.map(wireStatus),
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  // The kubelet keeps the last known pod IP of a pod whose sandbox is gone.
  if (!rt.podIP && typeof old.podIP === 'string') {
    status.podIP = old.podIP;
    status.podIPs = old.podIPs as Array<{ ip: string }>;
  }
  return status;
}

/** RFC 3339 at whole seconds, as metav1.Time is written. */
export const rfc3339 = (ms: number = Date.now()): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
