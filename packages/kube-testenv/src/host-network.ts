import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { NETWORK } from './cluster-plan.ts';

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const tryIp = (...args: string[]) => {
  try {
    return ip(...args);
  } catch {
    return undefined;
  }
};

/** Root is needed for network namespaces, veth pairs, iptables (kube-proxy) and per-pod uids. */
export function assertRoot(): void {
  if (process.getuid?.() !== 0) {
    throw new Error(
      'the Kubernetes test control plane needs root: it creates a network namespace per pod, veth pairs and ' +
        'iptables rules (kube-proxy). Run npm test as root (as CI does), or skip these tests with --project to pick others.',
    );
  }
}

/**
 * Gives the host the node's address on an interface of its own (a bridge with no ports) and turns on forwarding, so pods (in
 * their own namespaces) reach the API server and each other through the host's routing table,
 * where kube-proxy's iptables rules apply.
 */
export function setUpHostNetwork(): void {
  execFileSync('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
  if (!tryIp('link', 'show', NETWORK.hostInterface)) ip('link', 'add', NETWORK.hostInterface, 'type', 'bridge');
  if (!ip('-4', 'addr', 'show', 'dev', NETWORK.hostInterface).includes(`${NETWORK.hostAddress}/`)) {
    ip('addr', 'add', `${NETWORK.hostAddress}/32`, 'dev', NETWORK.hostInterface);
  }
  ip('link', 'set', NETWORK.hostInterface, 'up');
  // ClusterIPs go into the port-less bridge, where a packet kube-proxy did not rewrite is dropped.
  // Without this route they follow the default route off the machine, and on a sandbox whose
  // egress proxy answers any address (HTTP 404) a probe sent before kube-proxy's rules existed
  // got a keep-alive connection to that proxy and kept it after the rules came (a CI flake).
  // kube-proxy's DNAT in OUTPUT and PREROUTING still sends rewritten packets to their pods.
  ip('route', 'replace', NETWORK.serviceCIDR, 'dev', NETWORK.hostInterface);
}

/** Network namespaces a previous run left behind (a killed test run cannot clean up). */
export function staleNamespaces(): string[] {
  let names: string[] = [];
  try {
    names = readdirSync('/run/netns');
  } catch {
    return [];
  }
  return names.filter((n) => n.startsWith(NETWORK.namespacePrefix));
}

/** Removes every pod namespace and host veth of ours, and the dummy interface. */
export function tearDownHostNetwork(opts: { keepInterface?: boolean } = {}): void {
  for (const ns of staleNamespaces()) tryIp('netns', 'del', ns);
  const links = tryIp('-o', 'link', 'show') ?? '';
  for (const m of links.matchAll(new RegExp(`^\\d+: (${NETWORK.vethPrefix}[^:@]+)`, 'gm'))) tryIp('link', 'del', m[1]!);
  if (!opts.keepInterface) tryIp('link', 'del', NETWORK.hostInterface);
}
