import { execFileSync } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '@orrery/etcdcluster';
import { NETWORK, NODE_NAME } from './cluster-plan.ts';
import { ControlPlane, type ControlPlaneInfo } from './control-plane.ts';
import { assertRoot, staleNamespaces, tearDownHostNetwork } from './host-network.ts';
import { HostPathProvisioner } from './hostpath-provisioner.ts';
import { ManagedProcess } from './managed-process.ts';
import { k8sBinDir, REPO_ROOT } from './tool-paths.ts';

/** Everything a test needs, serialisable (vitest's provide/inject carries it to test workers). */
export interface TestClusterInfo extends ControlPlaneInfo {
  nodeName: string;
  /** The process kubelet's directory: pods/<ns>_<pod>/<container>.log and .pid. */
  kubeletDir: string;
  /** Loopback control endpoint of the harness (restart the API server, compact etcd). */
  controlURL: string;
  controlToken: string;
}

/** Where a running test cluster describes itself (pids for stale cleanup, info for reuse). */
export const STATE_FILE = join(tmpdir(), 'orrery-kube-testenv.json');

interface StateFile {
  info: TestClusterInfo;
  pids: number[];
  owner: number;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Removes what a killed earlier run left: its processes (control plane, kubelet, and every
 * process still inside a pod network namespace), the namespaces and veths, kube-proxy's chains.
 */
export function cleanUpStale(log: (l: string) => void = () => {}): void {
  if (existsSync(STATE_FILE)) {
    try {
      const s = JSON.parse(readFileSync(STATE_FILE, 'utf8')) as StateFile;
      const left = s.pids.filter(alive);
      if (left.length) log(`[kube-testenv] stopping ${left.length} processes of an earlier run`);
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    } catch {
      /* unreadable: nothing to kill */
    }
    rmSync(STATE_FILE, { force: true });
  }
  for (const ns of staleNamespaces()) {
    let pids: string[] = [];
    try {
      pids = execFileSync('ip', ['netns', 'pids', ns]).toString().split(/\s+/).filter(Boolean);
    } catch {
      /* namespace already gone */
    }
    for (const pid of pids) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  tearDownHostNetwork();
}

/** Held (with the starter's pid) from the first step of a start until its state file exists. */
const START_LOCK = `${STATE_FILE}.lock`;

/**
 * Takes the start lock, or waits while a live process holds it (another test run or
 * `kube-testenv up` is starting a cluster) and answers that cluster once it runs. Without this,
 * two starts at once would each clean up the other's half-started cluster.
 */
export async function startLockOrRunning(timeoutMs = 300_000): Promise<'locked' | TestClusterInfo> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A cluster that already runs is used, never started over (a start cleans up "stale" clusters).
    const up = runningCluster();
    if (up) return up;
    try {
      writeFileSync(START_LOCK, String(process.pid), { flag: 'wx' });
      // It may have come up between the check and the lock.
      const upNow = runningCluster();
      if (upNow) {
        releaseStartLock();
        return upNow;
      }
      return 'locked';
    } catch {
      const holder = Number(readFileSync(START_LOCK, 'utf8').trim() || '0');
      if (!holder || !alive(holder)) {
        rmSync(START_LOCK, { force: true });
        continue;
      }
    }
    const running = runningCluster();
    if (running) return running;
    if (Date.now() > deadline) throw new Error(`another process (pid ${readFileSync(START_LOCK, 'utf8').trim()}) has been starting the test cluster for ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

function releaseStartLock(): void {
  try {
    if (readFileSync(START_LOCK, 'utf8').trim() === String(process.pid)) unlinkSync(START_LOCK);
  } catch {
    /* not ours, or gone */
  }
}

/** Reads the state file of a cluster started by `kube-testenv up` that is still running. */
export function runningCluster(): TestClusterInfo | undefined {
  if (!existsSync(STATE_FILE)) return undefined;
  try {
    const s = JSON.parse(readFileSync(STATE_FILE, 'utf8')) as StateFile;
    return alive(s.owner) ? s.info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The test cluster: a real control plane plus the process kubelet, started once per test run
 * (vitest global setup) or by hand (`kube-testenv up`), and stopped completely afterwards.
 */
export class TestCluster {
  private kubelet?: ManagedProcess;
  private provisioner?: HostPathProvisioner;
  private control?: Server;
  info!: TestClusterInfo;

  private constructor(
    private readonly cp: ControlPlane,
    private readonly log: (l: string) => void,
  ) {}

  /** Call with the start lock held (startLockOrRunning); it is released once the state file is written. */
  static async start(o: { dir?: string; log?: (l: string) => void } = {}): Promise<TestCluster> {
    try {
      return await TestCluster.boot(o);
    } finally {
      releaseStartLock();
    }
  }

  private static async boot(o: { dir?: string; log?: (l: string) => void }): Promise<TestCluster> {
    const log = o.log ?? (() => {});
    assertRoot();
    const binDir = k8sBinDir();
    cleanUpStale(log);
    const dir = o.dir ?? join(tmpdir(), 'orrery-kube-testenv');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const cp = await ControlPlane.start({ dir, binDir, log });
    const cluster = new TestCluster(cp, log);
    try {
      await cluster.startKubelet(dir, binDir);
      await cluster.startProvisioner(dir);
      await cluster.startControl();
      cluster.writeState();
      return cluster;
    } catch (err) {
      await cluster.stop();
      throw err;
    }
  }

  private async startKubelet(dir: string, binDir: string): Promise<void> {
    const kubeletDir = join(dir, 'kubelet');
    mkdirSync(kubeletDir, { recursive: true });
    this.log('[kube-testenv] starting the process kubelet');
    this.kubelet = new ManagedProcess('process-kubelet', process.execPath, [
      join(REPO_ROOT, 'packages', 'kube-testenv', 'bin', 'process-kubelet.mjs'),
      `--kubeconfig=${this.cp.info.nodeKubeconfig}`,
      `--node-name=${NODE_NAME}`,
      `--node-ip=${NETWORK.hostAddress}`,
      `--dir=${kubeletDir}`,
      `--bin-dir=${binDir}`,
    ], join(dir, 'logs', 'process-kubelet.log')).start();
    await waitFor(
      `node ${NODE_NAME} Ready`,
      90_000,
      async () => {
        if (this.kubelet?.exited) throw new Error(`the process kubelet exited:\n${this.kubelet.lastLines()}`);
        const r = await this.cp.get(`/api/v1/nodes/${NODE_NAME}`).catch(() => undefined);
        if (r?.status !== 200) return undefined;
        const node = JSON.parse(r.body) as { status?: { conditions?: Array<{ type: string; status: string }> } };
        return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
      },
      () => this.kubelet?.lastLines() ?? '',
      250,
    );
    this.info = { ...this.cp.info, nodeName: NODE_NAME, kubeletDir, controlURL: '', controlToken: '' };
  }

  /** The default StorageClass (`standard`) and its hostPath provisioner, as kind and minikube clusters have one. */
  private async startProvisioner(dir: string): Promise<void> {
    const kc = new KubeConfig();
    kc.loadFromFile(this.cp.info.adminKubeconfig);
    this.provisioner = new HostPathProvisioner(kc, join(dir, 'provisioned-volumes'), this.log);
    await this.provisioner.start();
  }

  /** A loopback endpoint so tests (in other processes) can restart the API server or compact etcd. */
  private async startControl(): Promise<void> {
    const token = randomBytes(24).toString('hex');
    const want = Buffer.from(`Bearer ${token}`);
    this.control = createServer((req, res) => {
      const got = Buffer.from(req.headers.authorization ?? '');
      if (got.length !== want.length || !timingSafeEqual(got, want)) {
        res.writeHead(401).end('{"error":"unauthorized"}');
        return;
      }
      const reply = (p: Promise<unknown>) =>
        p.then(
          (v) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result: v ?? null })),
          (e: unknown) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: String(e) })),
        );
      if (req.method === 'POST' && req.url === '/restart-apiserver') return void reply(this.cp.restartApiServer());
      if (req.method === 'POST' && req.url === '/compact-etcd') return void reply(this.cp.compactEtcd());
      res.writeHead(404).end('{"error":"not_found"}');
    });
    await new Promise<void>((r) => this.control!.listen(0, '127.0.0.1', r));
    const addr = this.control.address();
    this.info.controlURL = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    this.info.controlToken = token;
  }

  private writeState(): void {
    const pids = [...Object.values(this.cp.pids()), this.kubelet?.pid].filter((p): p is number => typeof p === 'number');
    const state: StateFile = { info: this.info, pids, owner: process.pid };
    writeFileSync(STATE_FILE, JSON.stringify(state, null, 2), { mode: 0o600 });
  }

  async stop(): Promise<void> {
    this.control?.close();
    this.provisioner?.stop();
    // The kubelet stops its pods (SIGTERM, grace, SIGKILL) and removes their namespaces.
    await this.kubelet?.stop(30_000);
    await this.cp.stop();
    cleanUpStale();
    rmSync(STATE_FILE, { force: true });
  }
}
