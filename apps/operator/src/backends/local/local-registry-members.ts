/**
 * The etcd members of one RegistryCluster as child processes on this machine. Each member has a
 * folder `<clusterDir>/<member>/` holding `member.json` (its identity: name, ordinal, ports) and
 * `etcd/` (its data dir), so an operator restart brings the same members back from their data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { etcdMemberArgs, freePorts, waitUntilHalted } from '@orrery/etcdcluster';
import type { RegistryMembers } from '../../registry-cluster/registry-cluster-backend.ts';

export interface MemberIdentity {
  name: string;
  ordinal: number;
  clientPort: number;
  peerPort: number;
}

export interface LocalMember extends MemberIdentity {
  clientURL: string;
  peerURL: string;
  dir: string;
  dataDir: string;
  process?: ChildProcess;
  logTail: string[];
}

export interface LocalMembersOptions {
  clusterDir: string;
  /** Raft cluster token (stable per resource: its uid). */
  token: string;
  etcdBin: string;
  heartbeatMs: number;
  electionMs: number;
  log: (msg: string, fields?: Record<string, unknown>) => void;
}

const running = (p: ChildProcess | undefined): boolean => !!p && p.exitCode === null && p.signalCode === null;

export class LocalMembers implements RegistryMembers {
  private readonly members = new Map<string, LocalMember>();
  /** Members that must stay down (tests: a machine that is gone). */
  private readonly held = new Set<string>();

  constructor(private readonly o: LocalMembersOptions) {
    mkdirSync(o.clusterDir, { recursive: true });
    for (const entry of readdirSync(o.clusterDir, { withFileTypes: true })) {
      const file = join(o.clusterDir, entry.name, 'member.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const id = JSON.parse(readFileSync(file, 'utf8')) as MemberIdentity;
      this.members.set(id.name, this.toMember(id));
    }
  }

  private toMember(id: MemberIdentity): LocalMember {
    const dir = join(this.o.clusterDir, id.name);
    return { ...id, clientURL: `http://127.0.0.1:${id.clientPort}`, peerURL: `http://127.0.0.1:${id.peerPort}`, dir, dataDir: join(dir, 'etcd'), logTail: [] };
  }

  list(): LocalMember[] {
    return [...this.members.values()].sort((a, b) => a.ordinal - b.ordinal);
  }

  get(name: string): LocalMember | undefined {
    return this.members.get(name);
  }

  isRunning(name: string): boolean {
    return running(this.members.get(name)?.process);
  }

  /** Picks ports and records the identity before etcd hears of the member (crash-safe order). */
  async create(name: string, ordinal: number): Promise<LocalMember> {
    // Not a port another member of this cluster was given (it may not be listening yet).
    const taken = new Set([...this.members.values()].flatMap((x) => [x.clientPort, x.peerPort]));
    const [clientPort, peerPort] = await freePorts(2, '127.0.0.1', taken);
    const m = this.toMember({ name, ordinal, clientPort: clientPort!, peerPort: peerPort! });
    mkdirSync(m.dir, { recursive: true });
    writeFileSync(join(m.dir, 'member.json'), JSON.stringify({ name, ordinal, clientPort, peerPort }));
    this.members.set(name, m);
    return m;
  }

  /**
   * True once etcd has written its WAL: restarts then ignore the initial-cluster flags. Not the
   * `member/` folder alone — etcd makes it before it asks the cluster to join, so a first start
   * that died there (a timeout after SIGSTOP, a busy leader) leaves the folder and no WAL.
   */
  hasData(name: string): boolean {
    const m = this.members.get(name);
    const walDir = m && join(m.dataDir, 'member', 'wal');
    return !!walDir && existsSync(walDir) && readdirSync(walDir).some((f) => f.endsWith('.wal'));
  }

  /** Starts the member's etcd (no-op when it runs). `initialCluster` only matters on first start. */
  start(name: string, initialCluster: string, state: 'new' | 'existing'): Promise<void> {
    this.spawnMember(name, initialCluster, state);
    return Promise.resolve();
  }

  private spawnMember(name: string, initialCluster: string, state: 'new' | 'existing'): void {
    const m = this.members.get(name);
    if (!m || running(m.process) || this.held.has(name)) return;
    const args = etcdMemberArgs({ ...m, initialCluster, state, token: this.o.token, heartbeatMs: this.o.heartbeatMs, electionMs: this.o.electionMs });
    const child = spawn(this.o.etcdBin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    m.process = child;
    // A missing or unrunnable binary is an 'error' event: without a listener it would crash the operator.
    child.once('error', (err) => this.o.log('etcd member could not start', { member: name, bin: this.o.etcdBin, error: err.message }));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      m.logTail.push(...chunk.split('\n').filter(Boolean));
      if (m.logTail.length > 20) m.logTail.splice(0, m.logTail.length - 20);
    });
    // etcd's last words say why (a port taken, a bad data dir): the operator's log is where users
    // look. 'close', not 'exit': by then its stderr has been read to the end.
    child.once('close', (code, signal) => this.o.log('etcd member exited', { member: name, code, signal, lastLog: m.logTail.slice(-3) }));
    this.o.log('etcd member started', { member: name, pid: child.pid, state });
  }

  /** Kills the member and keeps it down, like a machine that is gone for good. */
  async fail(name: string): Promise<void> {
    this.held.add(name);
    await this.kill(name);
  }

  async kill(name: string): Promise<void> {
    const child = this.members.get(name)?.process;
    if (!running(child)) return;
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    child!.kill('SIGKILL');
    await exited;
  }

  /**
   * SIGSTOP: the process stays (the operator does not restart it) but answers nothing. Returns
   * once every thread has stopped: until then etcd may still answer (stopped-threads.ts).
   */
  pause(name: string): void {
    const child = this.members.get(name)?.process;
    if (!running(child)) return;
    child!.kill('SIGSTOP');
    waitUntilHalted(child!.pid!, 5_000);
  }

  /** SIGCONT after `pause`. */
  resume(name: string): void {
    const child = this.members.get(name)?.process;
    if (running(child)) child!.kill('SIGCONT');
  }

  /** After etcd removed the member: stop it and delete its data so it can never rejoin as a voter. */
  async forget(name: string): Promise<void> {
    const m = this.members.get(name);
    if (!m) return;
    await this.kill(name);
    rmSync(m.dir, { recursive: true, force: true });
    this.members.delete(name);
    this.held.delete(name);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.list().map((m) => this.kill(m.name)));
  }
}
