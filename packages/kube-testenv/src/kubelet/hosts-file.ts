import type { V1Pod, V1Service } from '@kubernetes/client-node';

/**
 * The files that stand in for cluster DNS: there is no CoreDNS in the test cluster, so each pod's
 * /etc/hosts (bind-mounted, rewritten in place as Services and pods change) carries every name
 * cluster DNS would answer with an address: Services, headless Services' ready pods, and the
 * `<hostname>.<subdomain>` names of StatefulSet pods.
 */

/** A pod as the hosts files need it (every pod the process kubelet runs). */
export interface PodRecord {
  namespace: string;
  name: string;
  ip: string;
  labels: Record<string, string>;
  hostname?: string;
  subdomain?: string;
  ready: boolean;
  terminating: boolean;
}

export const CLUSTER_DOMAIN = 'cluster.local';

/** The pod's hostname: spec.hostname, else its name, cut to 63 characters as the kubelet does. */
export function podHostname(pod: V1Pod): string {
  const h = pod.spec?.hostname || pod.metadata?.name || 'pod';
  return h.length > 63 ? h.slice(0, 63).replace(/[-.]+$/, '') : h;
}

export function podRecord(pod: V1Pod, ip: string, ready: boolean): PodRecord {
  return {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    ip,
    labels: pod.metadata?.labels ?? {},
    hostname: pod.spec?.hostname,
    subdomain: pod.spec?.subdomain,
    ready,
    terminating: !!pod.metadata?.deletionTimestamp,
  };
}

const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

/** Names for `<first>.<ns>` as seen from a pod in `fromNs`: FQDN, `.svc`, `<first>.<ns>`, and bare `<first>` in its own namespace. */
function names(first: string, ns: string, fromNs: string): string[] {
  const out = [`${first}.${ns}.svc.${CLUSTER_DOMAIN}`, `${first}.${ns}.svc`, `${first}.${ns}`];
  if (ns === fromNs) out.push(first);
  return out;
}

const byName = <T extends { metadata?: { namespace?: string; name?: string } }>(a: T, b: T) => {
  const ka = `${a.metadata?.namespace}/${a.metadata?.name}`;
  const kb = `${b.metadata?.namespace}/${b.metadata?.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

export interface HostsFileInput {
  pod: V1Pod;
  podIP: string;
  services: readonly V1Service[];
  pods: readonly PodRecord[];
}

export function renderHostsFile({ pod, podIP, services, pods }: HostsFileInput): string {
  const ns = pod.metadata?.namespace ?? '';
  const hostname = podHostname(pod);
  const lines = [
    '# Kubernetes-managed hosts file (written by the process kubelet of the test cluster).',
    '127.0.0.1\tlocalhost',
    '::1\tlocalhost ip6-localhost ip6-loopback',
    'fe00::0\tip6-localnet',
    'fe00::0\tip6-mcastprefix',
    'fe00::1\tip6-allnodes',
    'fe00::2\tip6-allrouters',
    pod.spec?.subdomain ? `${podIP}\t${hostname}.${pod.spec.subdomain}.${ns}.svc.${CLUSTER_DOMAIN}\t${hostname}` : `${podIP}\t${hostname}`,
  ];
  const aliases = pod.spec?.hostAliases ?? [];
  if (aliases.length) {
    lines.push('', '# Entries added by HostAliases.');
    for (const a of aliases) if (a.ip && a.hostnames?.length) lines.push(`${a.ip}\t${a.hostnames.join('\t')}`);
  }
  lines.push('', '# Cluster names: the process kubelet writes these instead of running cluster DNS.');
  for (const svc of [...services].sort(byName)) {
    const sNs = svc.metadata?.namespace ?? '';
    const sName = svc.metadata?.name ?? '';
    const ip = svc.spec?.clusterIP;
    if (svc.spec?.type === 'ExternalName' || !ip) continue;
    if (ip !== 'None') {
      lines.push(`${ip}\t${names(sName, sNs, ns).join('\t')}`);
      continue;
    }
    // Headless: the Service name answers with its endpoints, and pods that name it as their
    // subdomain get `<hostname>.<service>` records (what cluster DNS serves from EndpointSlices).
    const endpoints = pods
      .filter((p) => p.namespace === sNs && p.ip && !p.terminating && selects(svc.spec?.selector, p.labels))
      .filter((p) => p.ready || svc.spec?.publishNotReadyAddresses)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const p of endpoints) lines.push(`${p.ip}\t${names(sName, sNs, ns).join('\t')}`);
    for (const p of endpoints) {
      if (p.hostname && p.subdomain === sName) lines.push(`${p.ip}\t${names(`${p.hostname}.${sName}`, sNs, ns).join('\t')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * resolv.conf for a pod. ClusterFirst gets the cluster search path and `ndots:5` but no
 * nameserver: names resolve through /etc/hosts, and glibc, given no nameserver, tries 127.0.0.1,
 * where nothing listens in the pod's network namespace, so any other name fails at once.
 */
export function renderResolvConf(pod: V1Pod, hostResolvConf: string): string {
  const policy = pod.spec?.dnsPolicy ?? 'ClusterFirst';
  const cfg = pod.spec?.dnsConfig;
  if (policy === 'Default') return hostResolvConf;
  const ns = pod.metadata?.namespace ?? '';
  const nameservers = cfg?.nameservers ?? [];
  const searches = policy === 'None' ? [] : [`${ns}.svc.${CLUSTER_DOMAIN}`, `svc.${CLUSTER_DOMAIN}`, CLUSTER_DOMAIN];
  for (const s of cfg?.searches ?? []) if (!searches.includes(s)) searches.push(s);
  const options = new Map<string, string | undefined>(policy === 'None' ? [] : [['ndots', '5']]);
  for (const o of cfg?.options ?? []) if (o.name) options.set(o.name, o.value);
  const lines = ['# Written by the process kubelet: cluster names resolve through /etc/hosts (no cluster DNS server).'];
  for (const n of nameservers) lines.push(`nameserver ${n}`);
  if (searches.length) lines.push(`search ${searches.join(' ')}`);
  if (options.size) lines.push(`options ${[...options].map(([k, v]) => (v === undefined ? k : `${k}:${v}`)).join(' ')}`);
  return `${lines.join('\n')}\n`;
}
