import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLAIM_DIR, hostNames, networkNames, OCTETS, type HostNames, type NetworkNames } from './netns-names.ts';
import { netnsPidsSync, removeLeftoverNetworks, removeNetworkSync } from './netns-leftovers.ts';

const run = promisify(execFile);
const ip = async (...args: string[]): Promise<string> => (await run('ip', args)).stdout;

/** Runs a command with `input` on stdin; rejects with its stderr on a non-zero exit. */
function runWithInput(cmd: string, args: string[], input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}: ${stderr.trim()}`))));
    child.stdin.end(input);
  });
}

/** A participant of the network: a namespace of its own with one address. */
export interface NetnsHost extends HostNames {
  name: string;
}

/** Networks of this process that an exit hook must still remove. */
const live = new Set<NetnsNetwork>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const n of live) n.closeSync();
  });
}

/**
 * A private network for test processes: a host bridge `oeb<octet>` holding `10.251.<octet>.1/24`,
 * and per participant a network namespace `oetcd-<octet>-<name>` joined to the bridge by a veth
 * pair (`eth0` inside with `10.251.<octet>.<10+slot>/24`). The host — the test process — reaches
 * every participant; `partition` cuts participants off from each other with DROP rules in their
 * own namespaces' INPUT chains (silent loss, like a real partition; the host's firewall is never
 * touched), `heal` flushes them. The subnet is claimed machine-wide by a file holding our pid, so
 * parallel test files never share one, and whatever a killed run left is removed by the next
 * `create` (names carry the octet; see netns-leftovers.ts). Needs root.
 */
export class NetnsNetwork {
  private readonly hosts = new Map<string, NetnsHost>();
  private closed = false;

  private constructor(readonly names: NetworkNames) {}

  static async create(): Promise<NetnsNetwork> {
    if (process.getuid?.() !== 0) throw new Error('network namespaces need root (ip netns add, veth pairs, iptables inside the namespaces)');
    removeLeftoverNetworks();
    const octet = claimOctet();
    const network = new NetnsNetwork(networkNames(octet));
    live.add(network);
    installExitHook();
    try {
      const { bridge, hostAddress, prefixLength } = network.names;
      await ip('link', 'add', bridge, 'type', 'bridge');
      await ip('addr', 'add', `${hostAddress}/${prefixLength}`, 'dev', bridge);
      await ip('link', 'set', bridge, 'up');
      return network;
    } catch (err) {
      network.closeSync();
      throw err;
    }
  }

  get hostAddress(): string {
    return this.names.hostAddress;
  }

  /** Creates a namespace for `name` on the bridge and answers its address. */
  async addHost(name: string): Promise<NetnsHost> {
    if (this.closed) throw new Error('the network is closed');
    if (this.hosts.has(name)) throw new Error(`network participant ${name} exists already`);
    const host: NetnsHost = { name, ...hostNames(this.names.octet, this.hosts.size, name) };
    this.hosts.set(name, host);
    const inside = (...a: string[]) => ip('-n', host.netns, ...a);
    await ip('netns', 'add', host.netns);
    await ip('link', 'add', host.hostVeth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.netns);
    await ip('link', 'set', host.hostVeth, 'master', this.names.bridge, 'up');
    await inside('link', 'set', 'lo', 'up');
    await inside('addr', 'add', `${host.address}/${this.names.prefixLength}`, 'dev', 'eth0');
    await inside('link', 'set', 'eth0', 'up');
    return host;
  }

  host(name: string): NetnsHost {
    const h = this.hosts.get(name);
    if (!h) throw new Error(`no network participant named ${name}`);
    return h;
  }

  /** The command line that runs `argv` inside `name`'s namespace (`ip netns exec` execs it: same pid). */
  command(name: string, argv: string[]): { cmd: string; args: string[] } {
    return { cmd: 'ip', args: ['netns', 'exec', this.host(name).netns, ...argv] };
  }

  /**
   * Cuts the groups off from each other: every participant drops what arrives from participants
   * of the other groups. Participants in no group (and the host) still reach everyone. Replaces
   * an earlier partition. `reject` answers every packet with a reset / port-unreachable instead
   * of silence: open connections break at once, so etcd marks the peer unreachable and stops
   * streaming entries to it (with silent loss they pile up in socket buffers and arrive after
   * healing, which hides how far the peer really fell behind).
   */
  async partition(groups: string[][], how: 'drop' | 'reject' = 'drop'): Promise<void> {
    const groupOf = new Map<string, number>();
    groups.forEach((g, i) =>
      g.forEach((n) => {
        this.host(n);
        if (groupOf.has(n)) throw new Error(`${n} is in two partition groups`);
        groupOf.set(n, i);
      }),
    );
    await Promise.all(
      [...this.hosts.values()].map((h) => {
        const mine = groupOf.get(h.name);
        const blocked = mine === undefined ? [] : [...groupOf].filter(([, g]) => g !== mine).map(([n]) => this.host(n).address);
        return this.setDropRules(h, blocked, how);
      }),
    );
  }

  /** Removes every partition rule. */
  async heal(): Promise<void> {
    await Promise.all([...this.hosts.values()].map((h) => this.setDropRules(h, [])));
  }

  private setDropRules(h: NetnsHost, from: string[], how: 'drop' | 'reject' = 'drop'): Promise<void> {
    // iptables-restore swaps the namespace's whole filter table in one step.
    const verdicts = how === 'drop' ? ['-j DROP'] : ['-p tcp -j REJECT --reject-with tcp-reset', '-j REJECT'];
    const rules = [
      '*filter',
      ':INPUT ACCEPT [0:0]',
      ':FORWARD ACCEPT [0:0]',
      ':OUTPUT ACCEPT [0:0]',
      ...from.flatMap((a) => verdicts.map((v) => `-A INPUT -s ${a}/32 ${v}`)),
      'COMMIT',
      '',
    ];
    return runWithInput('ip', ['netns', 'exec', h.netns, 'iptables-restore', '-w'], rules.join('\n'));
  }

  /**
   * Limits what reaches `name` (token bucket on the host end of its veth, e.g. `'8mbit'`), or
   * lifts the limit with `undefined`. Slows a snapshot transfer down enough to interrupt it.
   */
  async limitIngress(name: string, rate: string | undefined): Promise<void> {
    const dev = this.host(name).hostVeth;
    if (rate === undefined) {
      await run('tc', ['qdisc', 'del', 'dev', dev, 'root']).catch(() => undefined);
      return;
    }
    await run('tc', ['qdisc', 'replace', 'dev', dev, 'root', 'tbf', 'rate', rate, 'burst', '64kbit', 'latency', '500ms']);
  }

  /** Pids running in a participant's namespace. */
  pids(name: string): number[] {
    return netnsPidsSync(this.host(name).netns);
  }

  /** Kills what still runs inside, removes namespaces, veths, bridge and the subnet claim. */
  async close(): Promise<void> {
    this.closeSync();
  }

  closeSync(): void {
    if (this.closed) return;
    this.closed = true;
    live.delete(this);
    removeNetworkSync(this.names.octet);
    try {
      unlinkSync(join(CLAIM_DIR, String(this.names.octet)));
    } catch {
      /* already gone */
    }
  }
}

/** Claims a free subnet octet by creating its claim file exclusively (atomic across processes). */
function claimOctet(): number {
  mkdirSync(CLAIM_DIR, { recursive: true });
  const start = (process.pid * 7 + Math.floor(Math.random() * 254)) % OCTETS.length;
  for (let i = 0; i < OCTETS.length; i++) {
    const octet = OCTETS[(start + i) % OCTETS.length]!;
    let fd: number;
    try {
      fd = openSync(join(CLAIM_DIR, String(octet)), 'wx');
    } catch {
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return octet;
  }
  throw new Error(`every subnet under 10.251.0.0/16 is claimed (see ${CLAIM_DIR})`);
}
