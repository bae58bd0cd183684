import { execFile } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { NETWORK } from '../cluster-plan.ts';
import { IpAllocator } from './ip-allocator.ts';

const run = promisify(execFile);
const ip = async (...args: string[]) => (await run('ip', args)).stdout;
const tryIp = (...args: string[]) => ip(...args).catch(() => '');

/** A pod's network: its namespace, the host end of its veth, its address. */
export interface PodSandbox {
  netns: string;
  netnsPath: string;
  hostVeth: string;
  podIP: string;
}

/** Short names from the pod UID: netns `okube-<10 hex>`, host veth `okv<10 hex>` (15-character limit). */
export function sandboxNames(podUID: string): { netns: string; hostVeth: string } {
  const short = podUID.replaceAll('-', '').slice(0, 10);
  return { netns: `${NETWORK.namespacePrefix}${short}`, hostVeth: `${NETWORK.vethPrefix}${short}` };
}

/** Pids of every process inside a network namespace. */
export async function netnsPids(netns: string): Promise<number[]> {
  const out = await tryIp('netns', 'pids', netns);
  return out.split(/\s+/).filter(Boolean).map(Number);
}

const killAll = (pids: number[]) => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
};

/**
 * Pod network namespaces on the node's bridge-less routing model: each pod gets a veth pair,
 * `eth0` inside with a /32 from the node's pod range, a link-local gateway reached through proxy
 * ARP on the host end, and a host route to its /32. Pods reach each other, the host and the
 * API server through the host's routing table, where kube-proxy's iptables rules apply.
 */
export class PodNetwork {
  private readonly ips = new IpAllocator(NETWORK.nodePodPrefix);

  constructor(private readonly log: (line: string) => void) {}

  /** Removes every pod namespace (and whatever runs in it) and host veth a previous kubelet left. */
  async removeLeftovers(): Promise<void> {
    let names: string[] = [];
    try {
      names = readdirSync('/run/netns').filter((n) => n.startsWith(NETWORK.namespacePrefix));
    } catch {
      names = [];
    }
    for (const ns of names) {
      killAll(await netnsPids(ns));
      await tryIp('netns', 'del', ns);
      this.log(`removed leftover network namespace ${ns}`);
    }
    const links = await tryIp('-o', 'link', 'show');
    for (const m of links.matchAll(new RegExp(`^\\d+: (${NETWORK.vethPrefix}[^:@]+)`, 'gm'))) await tryIp('link', 'del', m[1]!);
  }

  async create(podUID: string): Promise<PodSandbox> {
    const { netns, hostVeth } = sandboxNames(podUID);
    // A namespace of the same pod from an earlier attempt goes first.
    await this.destroy({ netns, hostVeth, netnsPath: '', podIP: '' });
    const podIP = this.ips.allocate();
    try {
      await ip('netns', 'add', netns);
      await ip('link', 'add', hostVeth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns);
      writeFileSync(`/proc/sys/net/ipv4/conf/${hostVeth}/proxy_arp`, '1');
      await ip('link', 'set', hostVeth, 'up');
      const inside = (...a: string[]) => ip('-n', netns, ...a);
      await inside('link', 'set', 'lo', 'up');
      await inside('addr', 'add', `${podIP}/32`, 'dev', 'eth0');
      await inside('link', 'set', 'eth0', 'up');
      await inside('route', 'add', NETWORK.podGateway, 'dev', 'eth0', 'scope', 'link');
      await inside('route', 'add', 'default', 'via', NETWORK.podGateway, 'dev', 'eth0');
      await ip('route', 'replace', `${podIP}/32`, 'dev', hostVeth);
      return { netns, netnsPath: `/run/netns/${netns}`, hostVeth, podIP };
    } catch (err) {
      await this.destroy({ netns, hostVeth, netnsPath: '', podIP });
      throw err;
    }
  }

  /** Kills anything still in the namespace, removes the veth (and its route) and the namespace, frees the address. */
  async destroy(s: PodSandbox): Promise<void> {
    const pids = await netnsPids(s.netns);
    if (pids.length) {
      this.log(`killing ${pids.length} leftover process(es) in ${s.netns}`);
      killAll(pids);
    }
    await tryIp('link', 'del', s.hostVeth);
    await tryIp('netns', 'del', s.netns);
    if (s.podIP) this.ips.release(s.podIP);
  }
}
