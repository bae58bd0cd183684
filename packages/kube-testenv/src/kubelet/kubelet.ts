import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { NETWORK } from '../cluster-plan.ts';
import { REPO_ROOT } from '../tool-paths.ts';
import { ApiClient } from './api-client.ts';
import { STAGING_DIR } from './container-launch.ts';
import { podRecord, renderHostsFile } from './hosts-file.ts';
import type { HostTools } from './image-map.ts';
import { ListWatch } from './list-watch.ts';
import { HostMountPoints } from './mount-points.ts';
import { gatherNodeFacts, NodeHeartbeat } from './node-heartbeat.ts';
import { NODE_CAPACITY } from './node-status.ts';
import { EventRecorder } from './pod-events.ts';
import { PodNetwork } from './pod-network.ts';
import { type KubeletContext, PodWorker } from './pod-worker.ts';
import { ServiceAccountTokens } from './service-account-tokens.ts';

export interface KubeletOptions {
  kubeconfig: string;
  nodeName: string;
  nodeIP: string;
  /** The kubelet's folder: pods/<ns>_<pod>_<uid>/{containers,volumes}, persistent-volumes/, bin/. */
  dir: string;
  /** Where the test cluster's etcd is (for etcd images). */
  binDir?: string;
  log: (line: string) => void;
}

/** The newest Debian postgres (/usr/lib/postgresql/<version>/bin). */
function postgresBin(): string | undefined {
  try {
    const versions = readdirSync('/usr/lib/postgresql')
      .filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/postgres`))
      .sort((a, b) => Number(b) - Number(a));
    return versions[0] ? `/usr/lib/postgresql/${versions[0]}/bin` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A copy (a hard link when it can) of etcd where a pod's user can run it: the build cache under
 * /root is closed to other users, and etcd pods run as uid 1000.
 */
function publishEtcd(binDir: string | undefined, dir: string): string | undefined {
  const src = binDir && join(binDir, 'etcd');
  if (!src || !existsSync(src)) return undefined;
  const dst = join(dir, 'bin', 'etcd');
  mkdirSync(join(dir, 'bin'), { recursive: true, mode: 0o755 });
  rmSync(dst, { force: true });
  try {
    linkSync(src, dst);
  } catch {
    copyFileSync(src, dst);
  }
  return dst;
}

const read = (f: string) => {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return '';
  }
};

/**
 * The process kubelet: registers the Node, keeps it alive, and runs every pod bound to it as
 * local processes (PodWorker), keeping each pod's /etc/hosts current as Services and pods change.
 */
export class ProcessKubelet {
  private readonly workers = new Map<string, PodWorker>();
  private pods?: ListWatch<V1Pod>;
  private services?: ListWatch<V1Service>;
  private heartbeat?: NodeHeartbeat;
  private hostsTimer?: NodeJS.Timeout;
  private ctx!: KubeletContext;
  private stopping = false;

  private constructor(
    private readonly o: KubeletOptions,
    private readonly api: ApiClient,
  ) {}

  static async start(o: KubeletOptions): Promise<ProcessKubelet> {
    const api = await ApiClient.fromKubeconfig(o.kubeconfig);
    const k = new ProcessKubelet(o, api);
    await k.boot();
    return k;
  }

  private async boot(): Promise<void> {
    const { dir, log } = this.o;
    const podsDir = join(dir, 'pods');
    const claimsDir = join(dir, 'persistent-volumes');
    // Only root reaches the pods' folders; containers see their volumes through bind mounts.
    mkdirSync(podsDir, { recursive: true, mode: 0o700 });
    mkdirSync(claimsDir, { recursive: true, mode: 0o700 });
    mkdirSync(STAGING_DIR, { recursive: true, mode: 0o700 });
    const network = new PodNetwork(log);
    await network.removeLeftovers();

    const tools: HostTools = {
      repoRoot: REPO_ROOT,
      node: process.execPath,
      etcd: publishEtcd(this.o.binDir, dir),
      postgresBin: postgresBin(),
      redisServer: existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : undefined,
      python: existsSync('/usr/bin/python3') ? '/usr/bin/python3' : undefined,
      natsServer: existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : undefined,
      imageBin: join(import.meta.dirname, 'image-bin'),
      readFile: (f) => readFileSync(f, 'utf8'),
      orreryApps: () =>
        readdirSync(join(REPO_ROOT, 'apps'))
          .filter((a) => existsSync(join(REPO_ROOT, 'apps', a, 'Dockerfile')))
          .sort(),
      fileExists: (f) => existsSync(f),
    };
    this.ctx = {
      api: this.api,
      network,
      tokens: new ServiceAccountTokens(this.api),
      events: new EventRecorder(this.api, this.o.nodeName, log),
      tools,
      nodeName: this.o.nodeName,
      hostIP: this.o.nodeIP,
      podsDir,
      claimsDir,
      allocatable: { cpu: NODE_CAPACITY.cpu, memory: NODE_CAPACITY.memory },
      services: () => [...(this.services?.items.values() ?? [])],
      hostsFile: (pod, podIP) =>
        renderHostsFile({
          pod,
          podIP,
          services: [...(this.services?.items.values() ?? [])],
          pods: [...this.workers.values()].filter((w) => w.podIP).map((w) => podRecord(w.pod, w.podIP!, w.ready)),
        }),
      podNetworkChanged: () => this.scheduleHostsRewrite(),
      hostResolvConf: read('/etc/resolv.conf'),
      hostPasswd: read('/etc/passwd'),
      mountPoints: new HostMountPoints(),
      log,
    };

    const facts = await gatherNodeFacts(this.api, { name: this.o.nodeName, ip: this.o.nodeIP, podCIDR: NETWORK.nodePodCIDR });
    this.heartbeat = new NodeHeartbeat(this.api, facts, log);
    await this.heartbeat.start();

    this.services = new ListWatch<V1Service>(this.api, '/api/v1/services', { upsert: () => this.scheduleHostsRewrite(), deleted: () => this.scheduleHostsRewrite() }, log);
    await this.services.start();
    this.pods = new ListWatch<V1Pod>(
      this.api,
      `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${this.o.nodeName}`)}`,
      { upsert: (p) => this.podSeen(p), deleted: (p) => this.podGone(p) },
      log,
    );
    await this.pods.start();
    log(`process kubelet ready: node ${this.o.nodeName} (${this.o.nodeIP}), ${this.workers.size} pod(s)`);
  }

  private podSeen(pod: V1Pod): void {
    if (this.stopping) return;
    const uid = pod.metadata?.uid;
    if (!uid) return;
    const w = this.workers.get(uid);
    if (w) return w.update(pod);
    this.o.log(`pod ${pod.metadata?.namespace}/${pod.metadata?.name} (${uid}) bound here: starting it`);
    this.workers.set(uid, new PodWorker(pod, this.ctx));
  }

  private podGone(pod: V1Pod): void {
    const uid = pod.metadata?.uid;
    const w = uid && this.workers.get(uid);
    if (!w) return;
    w.removed(pod);
    void w.finished.then(() => {
      this.workers.delete(uid);
      this.scheduleHostsRewrite();
    });
  }

  private scheduleHostsRewrite(): void {
    if (this.hostsTimer) return;
    this.hostsTimer = setTimeout(() => {
      this.hostsTimer = undefined;
      for (const w of this.workers.values()) {
        try {
          w.rewriteHostsFile();
        } catch (err) {
          this.o.log(`hosts file of ${w.ref}: ${(err as Error).message}`);
        }
      }
    }, 100);
  }

  /** Stops every pod (stop signal, grace, SIGKILL; at most `budgetMs` in all) and the loops. */
  async stop(budgetMs = 20_000): Promise<void> {
    this.stopping = true;
    this.heartbeat?.stop();
    this.pods?.stop();
    this.services?.stop();
    clearTimeout(this.hostsTimer);
    const all = Promise.all([...this.workers.values()].map((w) => w.shutdown(budgetMs - 3000)));
    await Promise.race([all, new Promise((r) => setTimeout(r, budgetMs))]);
    await this.ctx.network.removeLeftovers();
    try {
      rmdirSync(STAGING_DIR);
    } catch {
      /* not empty or gone: leave it */
    }
    this.api.close();
  }
}
