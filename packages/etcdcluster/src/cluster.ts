import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killOnExit } from './kill-on-exit.ts';
import { etcdMemberArgs } from './member-args.ts';
import { NetnsNetwork } from './netns-network.ts';
import { noRetryClient } from './no-retry.ts';
import { freePorts } from './ports.ts';
import { waitUntilHalted } from './stopped-threads.ts';
import { waitFor } from './wait.ts';

export type MemberState = 'running' | 'stopped' | 'killed' | 'removed';

export interface EtcdMember {
  name: string;
  clientURL: string;
  peerURL: string;
  dataDir: string;
  /** Hex member id once known (from the cluster's member list). */
  id?: string;
  state: MemberState;
  isLearner: boolean;
  process?: ChildProcess;
  /** Last lines of the member's stderr, for error messages. */
  logTail: string[];
  /** With `network: 'netns'`: the member's network namespace (its address is in its URLs). */
  netns?: string;
  /** How the last process ended (code or signal), once it has. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** `msg: error` of the last fatal or panic (else error) line etcd logged, kept past the tail. */
  lastProblem?: { level: string; text: string };
}

export interface EtcdClusterOptions {
  size: number;
  etcdBin?: string;
  /** Raft heartbeat and election timeout (ms). Generous defaults suit a busy shared machine. */
  heartbeatMs?: number;
  electionMs?: number;
  token?: string;
  /** Extra flags for every member (e.g. `--auto-compaction-retention`). */
  extraArgs?: string[];
  /** Wait for a leader before returning from `start` (default true). */
  waitForLeader?: boolean;
  startTimeoutMs?: number;
  /**
   * `loopback` (default): members listen on 127.0.0.1 free ports. `netns`: every member runs in
   * a network namespace of its own with an address of its own (ports 2379/2380) on a private
   * bridge, so a test can partition them (`cluster.network.partition`); needs root.
   */
  network?: 'loopback' | 'netns';
}

export interface MemberStatus {
  name: string;
  id: string;
  leader: string;
  raftTerm: number;
  raftIndex: number;
  raftAppliedIndex: number;
  isLearner: boolean;
}

/**
 * Refusals after which nothing was applied, so asking again is safe: etcd's "wait until the
 * cluster has been healthy" guards, and a connection that was never established.
 */
const RETRYABLE_REFUSAL = /unhealthy cluster|not enough started members|No connection established|ECONNREFUSED/i;

/** Remembers etcd's last fatal/panic line (or error line, when no fatal one came yet). */
function noteProblem(m: EtcdMember, line: string): void {
  if (!line.startsWith('{')) return;
  let entry: { level?: string; msg?: string; error?: string };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return;
  }
  const severe = entry.level === 'fatal' || entry.level === 'panic';
  if (!severe && entry.level !== 'error') return;
  if (!severe && (m.lastProblem?.level === 'fatal' || m.lastProblem?.level === 'panic')) return;
  m.lastProblem = { level: entry.level!, text: [entry.msg, entry.error].filter(Boolean).join(': ') };
}

/** Member ids travel as decimal strings in etcd3; we show them in hex like etcdctl. */
export function memberIdHex(decimal: string): string {
  return BigInt(decimal).toString(16);
}

/**
 * A local etcd cluster on loopback ports with temporary data directories: the test harness and
 * the operator's local backend. Every process it starts is killed by `close()` or on exit.
 */
export class EtcdCluster {
  readonly members: EtcdMember[] = [];
  private readonly baseDir: string;
  private readonly opts: Required<Omit<EtcdClusterOptions, 'size'>>;
  private closed = false;
  /** The members' private network with `network: 'netns'`; add other participants with `addHost`. */
  network?: NetnsNetwork;

  /** Every port handed to a member of this cluster, so no two members get the same one. */
  private readonly portsGiven = new Set<number>();

  private constructor(opts: EtcdClusterOptions) {
    this.baseDir = mkdtempSync(join(tmpdir(), 'orrery-etcd-'));
    this.opts = {
      etcdBin: opts.etcdBin ?? process.env.ETCD_BIN ?? '/usr/bin/etcd',
      heartbeatMs: opts.heartbeatMs ?? 100,
      electionMs: opts.electionMs ?? 1000,
      token: opts.token ?? `orrery-${Math.random().toString(36).slice(2, 10)}`,
      extraArgs: opts.extraArgs ?? [],
      waitForLeader: opts.waitForLeader ?? true,
      startTimeoutMs: opts.startTimeoutMs ?? 60_000,
      network: opts.network ?? 'loopback',
    };
  }

  static async start(options: EtcdClusterOptions): Promise<EtcdCluster> {
    const cluster = new EtcdCluster(options);
    try {
      if (cluster.opts.network === 'netns') cluster.network = await NetnsNetwork.create();
      for (let i = 0; i < options.size; i++) cluster.members.push(await cluster.allocateMember(`m${i + 1}`));
      const initialCluster = cluster.members.map((m) => `${m.name}=${m.peerURL}`).join(',');
      for (const m of cluster.members) cluster.spawnMember(m, initialCluster, 'new');
      if (cluster.opts.waitForLeader) await cluster.waitForLeader(cluster.opts.startTimeoutMs, { failOnExit: true });
      return cluster;
    } catch (err) {
      await cluster.close();
      throw err;
    }
  }

  /** A member's addresses: free loopback ports, or a namespace of its own on the cluster's network. */
  private async allocateMember(name: string): Promise<EtcdMember> {
    const base = { name, dataDir: join(this.baseDir, name), state: 'killed' as const, isLearner: false, logTail: [] };
    if (this.network) {
      const host = await this.network.addHost(name);
      return { ...base, clientURL: `http://${host.address}:2379`, peerURL: `http://${host.address}:2380`, netns: host.netns };
    }
    const [clientPort, peerPort] = await freePorts(2, '127.0.0.1', this.portsGiven);
    return { ...base, clientURL: `http://127.0.0.1:${clientPort}`, peerURL: `http://127.0.0.1:${peerPort}` };
  }

  private spawnMember(m: EtcdMember, initialCluster: string, state: 'new' | 'existing'): void {
    const o = this.opts;
    const args = [
      ...etcdMemberArgs({ ...m, initialCluster, state, token: o.token, heartbeatMs: o.heartbeatMs, electionMs: o.electionMs }),
      ...o.extraArgs,
    ];
    this.launch(m, args);
  }

  /** Starts the process; the argument list is remembered so `restart` reuses it. */
  private launch(m: EtcdMember, args: string[]): void {
    const argv = [this.opts.etcdBin, ...args];
    const { cmd, args: cmdArgs } = this.network ? this.network.command(m.name, argv) : { cmd: argv[0]!, args: argv.slice(1) };
    const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
    killOnExit(child);
    m.process = child;
    m.state = 'running';
    m.exit = undefined;
    m.lastProblem = undefined;
    (m as EtcdMember & { args?: string[] }).args = args;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      const lines = chunk.split('\n').filter(Boolean);
      m.logTail.push(...lines);
      if (m.logTail.length > 40) m.logTail.splice(0, m.logTail.length - 40);
      for (const line of lines) noteProblem(m, line);
    });
    child.once('exit', (code, signal) => {
      if (m.process !== child) return;
      m.exit = { code, signal };
      if (m.state !== 'removed') m.state = 'killed';
    });
  }

  /**
   * Why a member's process ended, in etcd's words: the `msg` and `error` of its last error,
   * fatal or panic log line (e.g. `bootstrap failed: walpb: crc mismatch …`), or its last line.
   */
  exitReason(name: string): string | undefined {
    const m = this.member(name);
    if (!m.exit) return undefined;
    const how = m.exit.signal ? `signal ${m.exit.signal}` : `code ${m.exit.code}`;
    return `etcd member ${name} exited with ${how}: ${m.lastProblem?.text ?? m.logTail.at(-1) ?? 'no log'}`;
  }

  /**
   * Waits until a member answers a status request. Throws at once, with `exitReason`, when its
   * process ends meanwhile (a member that refuses to start from its data dir).
   */
  async waitServing(name: string, timeoutMs = 30_000): Promise<MemberStatus> {
    const m = this.member(name);
    return waitFor(`etcd member ${name} to serve`, timeoutMs, async () => {
      if (m.exit) throw new Error(this.exitReason(name));
      return this.status(name, 1000);
    }, () => m.logTail.slice(-3).join('\n'));
  }

  member(name: string): EtcdMember {
    const m = this.members.find((x) => x.name === name);
    if (!m) throw new Error(`no etcd member named ${name}`);
    return m;
  }

  /** Client URLs of members that are not removed (stopped or killed ones included). */
  endpoints(): string[] {
    return this.members.filter((m) => m.state !== 'removed').map((m) => m.clientURL);
  }

  /** Client URLs of members that are running right now. */
  runningEndpoints(): string[] {
    return this.members.filter((m) => m.state === 'running').map((m) => m.clientURL);
  }

  /** Status of one member, asked directly; undefined when it does not answer in time. */
  async status(name: string, deadlineMs = 2000): Promise<MemberStatus | undefined> {
    const m = this.member(name);
    const client = noRetryClient(m.clientURL, deadlineMs);
    try {
      const s = await client.maintenance.status();
      m.id = memberIdHex(s.header.member_id);
      return {
        name,
        id: m.id,
        leader: s.leader === '0' ? '' : memberIdHex(s.leader),
        raftTerm: Number(s.raftTerm),
        raftIndex: Number(s.raftIndex),
        raftAppliedIndex: Number(s.raftAppliedIndex),
        isLearner: Boolean(s.isLearner),
      };
    } catch {
      return undefined;
    } finally {
      client.close();
    }
  }

  /**
   * Waits until every running voter agrees on one leader that is itself running, and returns
   * that member's name. Polls; never sleeps blindly. `failOnExit`: throw at once, with
   * `exitReason`, when a member's process has ended (used by `start`).
   */
  async waitForLeader(timeoutMs = 30_000, opts: { failOnExit?: boolean } = {}): Promise<string> {
    return waitFor(`an etcd leader among ${this.runningNames().join(',')}`, timeoutMs, async () => {
      // At start nobody stops a member: one that exited will not come back (bad binary, flags, data dir).
      const exited = opts.failOnExit ? this.members.find((m) => m.exit) : undefined;
      if (exited) throw new Error(this.exitReason(exited.name));
      const running = this.members.filter((m) => m.state === 'running');
      const statuses = await Promise.all(running.map((m) => this.status(m.name)));
      if (statuses.some((s) => !s)) return undefined;
      const voters = statuses.filter((s) => s && !s.isLearner) as MemberStatus[];
      const leaders = new Set(voters.map((s) => s.leader));
      if (leaders.size !== 1) return undefined;
      const [leaderId] = [...leaders];
      const leader = voters.find((s) => s.id === leaderId);
      return leader?.name;
    }, () => this.members.map((m) => `${m.name}: ${m.logTail.slice(-3).join(' | ')}`).join('\n'));
  }

  /** Name of the current leader as seen by the running members (waits for one). */
  leader(timeoutMs = 30_000): Promise<string> {
    return this.waitForLeader(timeoutMs);
  }

  private runningNames(): string[] {
    return this.members.filter((m) => m.state === 'running').map((m) => m.name);
  }

  /** SIGKILL one member (its data dir stays, so `restart` brings it back). */
  async kill(name: string): Promise<void> {
    const m = this.member(name);
    const child = m.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      m.state = 'killed';
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
    m.state = 'killed';
  }

  /**
   * SIGSTOP: the process stays but answers nothing, like a node behind a partition. Returns only
   * once every thread has stopped (stopped-threads.ts: until then etcd may still answer).
   */
  stop(name: string): void {
    const m = this.member(name);
    const pid = m.process?.pid;
    m.process?.kill('SIGSTOP');
    if (pid !== undefined) waitUntilHalted(pid);
    m.state = 'stopped';
  }

  /** SIGCONT after `stop`. */
  cont(name: string): void {
    const m = this.member(name);
    m.process?.kill('SIGCONT');
    m.state = 'running';
  }

  /** Start a killed member again from its data directory. */
  async restart(name: string): Promise<void> {
    const m = this.member(name) as EtcdMember & { args?: string[] };
    if (m.state === 'running' || m.state === 'stopped') await this.kill(name);
    if (!m.args) throw new Error(`member ${name} was never started`);
    // On restart etcd reads membership from its data dir; the initial-cluster flags are ignored.
    this.launch(m, m.args);
  }

  /** A no-retry client for the running members (membership calls must not be repeated). */
  private adminClient(deadlineMs = 10_000, exclude?: string) {
    const voters = this.members.filter((m) => m.state === 'running' && !m.isLearner && m.clientURL !== exclude);
    return noRetryClient(voters.map((m) => m.clientURL), deadlineMs);
  }

  /** Hex ids of the current members by name (unstarted learners have an empty name). */
  async memberList(): Promise<Array<{ id: string; name: string; peerURLs: string[]; clientURLs: string[]; isLearner: boolean }>> {
    const client = this.adminClient();
    try {
      const res = await client.cluster.memberList({ linearizable: true });
      return res.members.map((x) => ({
        id: memberIdHex(x.ID),
        name: x.name,
        peerURLs: x.peerURLs,
        clientURLs: x.clientURLs,
        isLearner: Boolean(x.isLearner),
      }));
    } finally {
      client.close();
    }
  }

  /**
   * Adds a member (as a learner by default) through the cluster API, then starts its process
   * with `--initial-cluster-state existing`. etcd refuses membership changes until the cluster
   * has been healthy for a few seconds, so the caller may need to retry on "unhealthy cluster"
   * — we only retry that refusal, which means nothing was applied.
   */
  async addMember(name: string, opts: { learner?: boolean; timeoutMs?: number } = {}): Promise<EtcdMember> {
    const learner = opts.learner ?? true;
    const m = await this.allocateMember(name);
    const added = await waitFor(`etcd to accept member ${name}`, opts.timeoutMs ?? 30_000, async () => {
      const client = this.adminClient();
      try {
        return await client.cluster.memberAdd({ peerURLs: [m.peerURL], isLearner: learner });
      } catch (err) {
        if (RETRYABLE_REFUSAL.test(String(err))) return undefined;
        throw err;
      } finally {
        client.close();
      }
    });
    m.id = memberIdHex(added.member.ID);
    m.isLearner = learner;
    const initialCluster = added.members
      .map((x) => `${x.ID === added.member.ID ? name : x.name}=${x.peerURLs[0]}`)
      .join(',');
    this.members.push(m);
    this.spawnMember(m, initialCluster, 'existing');
    return m;
  }

  /**
   * Reserves ports and a data dir for a member that someone else will add through the cluster
   * API (e.g. the registry's admin API); start it afterwards with `startPrepared`.
   */
  async prepareMember(name: string): Promise<EtcdMember> {
    const m = await this.allocateMember(name);
    this.members.push(m);
    return m;
  }

  /** Starts a prepared member with the initial-cluster string MemberAdd answered. */
  startPrepared(name: string, initialCluster: string, opts: { learner?: boolean; id?: string } = {}): void {
    const m = this.member(name);
    m.isLearner = opts.learner ?? true;
    if (opts.id) m.id = opts.id;
    this.spawnMember(m, initialCluster, 'existing');
  }

  /** Records a role change made outside the harness (e.g. promote through the admin API). */
  markVoter(name: string): void {
    this.member(name).isLearner = false;
  }

  /** Records a removal made outside the harness and stops the process. */
  async markRemoved(name: string): Promise<void> {
    await this.kill(name);
    this.member(name).state = 'removed';
  }

  /** Promotes a learner; retries only etcd's "not in sync yet" refusal until the timeout. */
  async promote(name: string, timeoutMs = 30_000): Promise<void> {
    const m = this.member(name);
    if (!m.id) throw new Error(`member ${name} has no id yet`);
    await waitFor(`learner ${name} to be promotable`, timeoutMs, async () => {
      const client = this.adminClient();
      try {
        await client.cluster.memberPromote({ ID: BigInt(`0x${m.id}`).toString() });
        return true;
      } catch (err) {
        if (/in sync with leader|not in sync/i.test(String(err)) || RETRYABLE_REFUSAL.test(String(err))) return undefined;
        throw err;
      } finally {
        client.close();
      }
    });
    m.isLearner = false;
  }

  /** Removes a member through the cluster API and stops its process. */
  async removeMember(name: string, timeoutMs = 30_000): Promise<void> {
    const m = this.member(name);
    if (!m.id) await this.status(name);
    if (!m.id) {
      const list = await this.memberList();
      m.id = list.find((x) => x.name === name)?.id;
    }
    if (!m.id) throw new Error(`cannot find the id of member ${name}`);
    await waitFor(`etcd to remove member ${name}`, timeoutMs, async () => {
      const client = this.adminClient(10_000, m.clientURL);
      try {
        await client.cluster.memberRemove({ ID: BigInt(`0x${m.id}`).toString() });
        return true;
      } catch (err) {
        if (RETRYABLE_REFUSAL.test(String(err))) return undefined;
        if (/member not found/i.test(String(err))) return true;
        throw err;
      } finally {
        client.close();
      }
    });
    await this.kill(name);
    m.state = 'removed';
  }

  /** Kills every member, deletes the data directories and the members' network. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(
      this.members.map(async (m) => {
        const child = m.process;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    await this.network?.close();
    rmSync(this.baseDir, { recursive: true, force: true });
  }
}
