/**
 * Whether Kubernetes NetworkPolicies let one pod open a TCP connection to another, by the rules a
 * network plugin enforces: a pod selected by a policy of its namespace with policyType Ingress
 * (Egress) accepts (opens) only what some rule of those policies allows; a pod no such policy
 * selects is open. The chart's policies are checked against the threat model with this (these
 * machines run no network plugin that would enforce them).
 */

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}

interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string };
}
interface Rule {
  from?: Peer[];
  to?: Peer[];
  ports?: Array<{ port?: number | string; protocol?: string }>;
}
export interface NetworkPolicy {
  metadata: { name: string; namespace?: string };
  spec: { podSelector: LabelSelector; policyTypes?: Array<'Ingress' | 'Egress'>; ingress?: Rule[]; egress?: Rule[] };
}

/** A pod as the policies see it: its namespace and labels. */
export interface PodRef {
  namespace: string;
  labels: Record<string, string>;
}

export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    if (e.operator === 'In' && !(has && e.values?.includes(value!))) return false;
    if (e.operator === 'NotIn' && has && e.values?.includes(value!)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** Namespaces carry their name as the label kubernetes.io/metadata.name (set by the API server). */
const namespaceLabels = (ns: string) => ({ 'kubernetes.io/metadata.name': ns });

function peerMatches(peer: Peer, policyNamespace: string, other: PodRef): boolean {
  if (peer.ipBlock) return false; // pod-to-pod traffic is judged by selectors here
  const nsOk = peer.namespaceSelector ? selects(peer.namespaceSelector, namespaceLabels(other.namespace)) : other.namespace === policyNamespace;
  const podOk = peer.podSelector ? selects(peer.podSelector, other.labels) : true;
  return nsOk && podOk;
}

const portMatches = (rule: Rule, port: number) => !rule.ports?.length || rule.ports.some((p) => (p.protocol ?? 'TCP') === 'TCP' && (p.port === undefined || Number(p.port) === port));

function side(policies: readonly NetworkPolicy[], pod: PodRef, type: 'Ingress' | 'Egress', other: PodRef, port: number): boolean {
  const applying = policies.filter(
    (p) => (p.metadata.namespace ?? 'default') === pod.namespace && selects(p.spec.podSelector, pod.labels) && (p.spec.policyTypes ?? ['Ingress']).includes(type),
  );
  if (applying.length === 0) return true;
  return applying.some((p) =>
    (type === 'Ingress' ? p.spec.ingress : p.spec.egress)?.some((rule) => {
      const peers = type === 'Ingress' ? rule.from : rule.to;
      return portMatches(rule, port) && (!peers?.length || peers.some((peer) => peerMatches(peer, pod.namespace, other)));
    }),
  );
}

/** May `from` open a TCP connection to `to` on `port`? (Egress of the one and ingress of the other.) */
export function allowed(policies: readonly NetworkPolicy[], from: PodRef, to: PodRef, port: number): boolean {
  return side(policies, from, 'Egress', to, port) && side(policies, to, 'Ingress', from, port);
}
