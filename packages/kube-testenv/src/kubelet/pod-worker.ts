import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import type { V1ConfigMap, V1Container, V1Pod, V1Secret, V1Service } from '@kubernetes/client-node';
import { backoffDelay } from '@orrery/spec';
import { type ApiClient, ApiError, isConflict, isNotFound } from './api-client.ts';
import { containerRunConfig, type VolumeOnHost } from './container-config.ts';
import { launcherScript } from './container-launch.ts';
import { ContainerRunner, type RunnerHost } from './container-runner.ts';
import type { NodeAllocatable } from './downward-api.ts';
import { ContainerConfigError, envReferences, resolveContainerEnv } from './env-resolve.ts';
import { podHostname, renderResolvConf } from './hosts-file.ts';
import { type HostTools, mapImage } from './image-map.ts';
import type { EventRecorder } from './pod-events.ts';
import type { PodNetwork, PodSandbox } from './pod-network.ts';
import { computePodStatus, type PodRuntimeView, rfc3339 } from './pod-status.ts';
import type { HostMountPoints } from './mount-points.ts';
import type { ServiceAccountTokens } from './service-account-tokens.ts';
import { MountError } from './volume-payloads.ts';
import { PodVolumes } from './volumes.ts';

/** What every pod worker shares: the kubelet's connections, caches and host facts. */
export interface KubeletContext {
  api: ApiClient;
  network: PodNetwork;
  tokens: ServiceAccountTokens;
  events: EventRecorder;
  tools: HostTools;
  nodeName: string;
  hostIP: string;
  /** `<dir>/pods` */
  podsDir: string;
  /** `<dir>/persistent-volumes` */
  claimsDir: string;
  allocatable: NodeAllocatable;
  services(): V1Service[];
  /** The pod's /etc/hosts content now. */
  hostsFile(pod: V1Pod, podIP: string): string;
  /** A pod's address or readiness changed: other pods' hosts files may need rewriting. */
  podNetworkChanged(): void;
  hostResolvConf: string;
  /** The host's /etc/passwd. */
  hostPasswd: string;
  /** Mount points made on the host, removed when no container needs them. */
  mountPoints: HostMountPoints;
  log(line: string): void;
}

type StopReason = 'deleted' | 'removed' | 'shutdown';

const VOLUME_REFRESH_MS = 15_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** resourceVersions are etcd revisions here; comparing them keeps a late watch event from undoing a newer write. */
const newer = (a: V1Pod, b: V1Pod) => {
  const ra = a.metadata?.resourceVersion;
  const rb = b.metadata?.resourceVersion;
  return !ra || !rb || !/^\d+$/.test(ra) || !/^\d+$/.test(rb) || BigInt(ra) >= BigInt(rb);
};

/**
 * Runs one pod bound to this node, from its first sight to its deletion: the network sandbox,
 * the volumes, init containers in order, then the containers (each restarted per restartPolicy),
 * status after every change, and graceful termination when the pod is deleted, ending with the
 * pod's removal from the API server as a kubelet does (grace 0, UID precondition).
 */
export class PodWorker {
  pod: V1Pod;
  readonly uid: string;
  readonly dir: string;
  readonly finished: Promise<void>;
  private readonly rt: PodRuntimeView;
  private sandbox?: PodSandbox;
  private volumes?: PodVolumes;
  private volumeDirs?: Map<string, VolumeOnHost>;
  private readonly inits: ContainerRunner[];
  private readonly mains: ContainerRunner[];
  private stop?: { reason: StopReason; deadline: number };
  private resolveStop!: () => void;
  readonly stopRequested: Promise<void>;
  private forceKillTimer?: NodeJS.Timeout;
  private refreshTimer?: NodeJS.Timeout;
  private statusTimer?: NodeJS.Timeout;
  private statusRetry?: NodeJS.Timeout;
  private statusInFlight?: Promise<void>;
  private statusDirty = false;
  private lastSent = '';
  private readonly mapped = new Set<string>();
  private lastNetworkKey = '';

  constructor(
    pod: V1Pod,
    private readonly ctx: KubeletContext,
  ) {
    this.pod = pod;
    this.uid = pod.metadata!.uid!;
    this.dir = join(ctx.podsDir, `${pod.metadata!.namespace}_${pod.metadata!.name}_${this.uid}`);
    this.stopRequested = new Promise((r) => (this.resolveStop = r));
    const previous = (name: string) => [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])].find((s) => s.name === name)?.restartCount ?? 0;
    const hasInits = (pod.spec?.initContainers?.length ?? 0) > 0;
    this.inits = (pod.spec?.initContainers ?? []).map((c) => new ContainerRunner(c, this.runnerHost(), true, { waitingReason: 'PodInitializing', restartCount: previous(c.name) }));
    this.mains = (pod.spec?.containers ?? []).map((c) => new ContainerRunner(c, this.runnerHost(), false, { waitingReason: hasInits ? 'PodInitializing' : 'ContainerCreating', restartCount: previous(c.name) }));
    this.rt = {
      hostIP: ctx.hostIP,
      startTime: pod.status?.startTime ? rfc3339(new Date(pod.status.startTime).getTime()) : rfc3339(),
      sandboxReady: false,
      initContainers: this.inits.map((r) => r.record),
      containers: this.mains.map((r) => r.record),
      terminal: false,
    };
    this.finished = this.run().catch((err: Error) => ctx.log(`pod ${this.ref}: ${err.stack ?? err.message}`));
    if (pod.metadata?.deletionTimestamp) this.update(pod);
  }

  get ref(): string {
    return `${this.pod.metadata?.namespace}/${this.pod.metadata?.name}`;
  }

  private get podRef(): string {
    return `${this.pod.metadata?.name}_${this.pod.metadata?.namespace}(${this.uid})`;
  }

  get podIP(): string | undefined {
    return this.rt.sandboxReady ? this.rt.podIP : undefined;
  }

  get ready(): boolean {
    return this.mains.length > 0 && this.mains.every((r) => r.record.ready);
  }

  get hostsFilePath(): string {
    return join(this.dir, 'etc-hosts');
  }

  /** A newer version of the pod from the watch. */
  update(pod: V1Pod): void {
    if (pod.metadata?.uid !== this.uid) return;
    const labelsChanged = JSON.stringify([pod.metadata?.labels, pod.metadata?.annotations]) !== JSON.stringify([this.pod.metadata?.labels, this.pod.metadata?.annotations]);
    if (newer(pod, this.pod)) this.pod = pod;
    this.volumes?.update(this.pod);
    if (labelsChanged && this.volumeDirs) void this.refreshVolumes();
    if (pod.metadata?.deletionTimestamp) {
      const grace = pod.metadata.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
      this.requestStop('deleted', grace * 1000);
    }
  }

  /** The pod is gone from the API server (force-deleted): stop it, write nothing more. */
  removed(pod: V1Pod): void {
    if (pod.metadata?.uid !== this.uid) return;
    const grace = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    this.requestStop('removed', grace * 1000);
  }

  /** The kubelet is exiting: stop the pod within `graceMs`, write nothing more. */
  async shutdown(graceMs: number): Promise<void> {
    const grace = Math.min((this.pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000, graceMs);
    this.requestStop('shutdown', grace);
    await this.finished;
  }

  private requestStop(reason: StopReason, graceMs: number): void {
    const deadline = Date.now() + graceMs;
    if (this.stop) {
      // Once the pod is gone (or the kubelet exits) nothing more is written to the API server.
      const rank = { deleted: 0, removed: 1, shutdown: 2 };
      if (rank[reason] > rank[this.stop.reason]) this.stop.reason = reason;
      // A later, shorter grace period (a second delete, a force delete) takes over.
      if (deadline < this.stop.deadline) {
        this.stop.deadline = deadline;
        this.armForceKill();
      }
      return;
    }
    this.stop = { reason, deadline };
    this.resolveStop();
    this.armForceKill();
    const why = reason === 'shutdown' ? 'the process kubelet is stopping' : '';
    for (const r of [...this.inits, ...this.mains]) void r.kill(graceMs, why);
  }

  private armForceKill(): void {
    clearTimeout(this.forceKillTimer);
    this.forceKillTimer = setTimeout(() => {
      for (const r of [...this.inits, ...this.mains]) r.forceKill();
    }, Math.max(this.stop!.deadline - Date.now(), 2000));
  }

  private stopping = () => !!this.stop;

  private runnerHost(): RunnerHost {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const w = this;
    return {
      prepare: (c) => w.prepare(c),
      files: (c) => ({
        logFile: join(w.dir, 'containers', `${c.name}.log`),
        pidFile: join(w.dir, 'containers', `${c.name}.pid`),
        startMarker: join(w.dir, 'containers', `${c.name}.starting`),
        terminationLog: join(w.dir, 'containers', `${c.name}.termination-log`),
      }),
      get netnsPath() {
        return w.sandbox?.netnsPath;
      },
      get podIP() {
        return w.rt.podIP ?? w.ctx.hostIP;
      },
      get restartPolicy() {
        return w.pod.spec?.restartPolicy ?? 'Always';
      },
      get terminationGraceSeconds() {
        return w.pod.spec?.terminationGracePeriodSeconds ?? 30;
      },
      changed: () => w.statusChanged(),
      event: (type, reason, message, c) => w.event(type, reason, message, c),
      stopping: () => w.stopping(),
      stopRequested: w.stopRequested,
      get podRef() {
        return w.podRef;
      },
      log: (l) => w.ctx.log(`pod ${w.ref}: ${l}`),
    };
  }

  private event(type: 'Normal' | 'Warning', reason: string, message: string, c?: V1Container): void {
    const fieldPath = c ? `spec.${this.inits.some((r) => r.spec === c) ? 'initContainers' : 'containers'}{${c.name}}` : undefined;
    this.ctx.events.record({ namespace: this.pod.metadata!.namespace!, name: this.pod.metadata!.name!, uid: this.uid, fieldPath }, type, reason, message);
  }

  private async run(): Promise<void> {
    mkdirSync(join(this.dir, 'containers'), { recursive: true });
    chmodSync(this.dir, 0o700);
    const phase = this.pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') {
      // Finished before this kubelet started: nothing runs again; wait for the deletion.
      this.rt.terminal = true;
      await this.stopRequested;
      if (this.stop?.reason === 'deleted') await this.deleteFromApi();
      return;
    }
    this.statusChanged();
    try {
      await this.createSandbox();
      await this.setUpVolumes();
      this.refreshTimer = setInterval(() => void this.refreshVolumes(), VOLUME_REFRESH_MS);
      let initOK = true;
      for (const r of this.inits) {
        const outcome = await r.runToCompletion();
        if (outcome !== 'succeeded') {
          initOK = false;
          break;
        }
      }
      if (initOK && !this.stopping()) await Promise.all(this.mains.map((r) => r.runForever()));
      // Either the pod is stopping, or its containers finished for good under its restartPolicy.
      await Promise.all([...this.inits, ...this.mains].map((r) => r.running?.exited ?? Promise.resolve()));
    } finally {
      clearInterval(this.refreshTimer);
      this.rt.terminal = true;
      await this.tearDownSandbox();
      clearTimeout(this.forceKillTimer);
    }
    if (!this.stop) {
      this.statusChanged();
      await this.flushStatus();
      await this.stopRequested;
    }
    if (this.stop?.reason === 'deleted') {
      this.statusChanged();
      await this.flushStatus();
      await this.deleteFromApi();
    }
    this.ctx.tokens.forget(this.uid);
    this.ctx.events.forget(this.uid);
  }

  /** The network namespace and its address; retried until it works or the pod stops. */
  private async createSandbox(): Promise<void> {
    if (this.pod.spec?.hostNetwork) {
      this.rt.podIP = this.ctx.hostIP;
    } else {
      for (let attempt = 0; !this.stopping(); attempt++) {
        try {
          this.sandbox = await this.ctx.network.create(this.uid);
          this.rt.podIP = this.sandbox.podIP;
          break;
        } catch (err) {
          this.event('Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${(err as Error).message}`);
          await Promise.race([sleep(backoffDelay(attempt, { initialMs: 1000, maxMs: 30_000 })), this.stopRequested]);
        }
      }
      if (!this.sandbox) return;
    }
    // The downward API can name status.podIP, so volumes are set up once the address is known.
    this.volumes = new PodVolumes(
      { api: this.ctx.api, tokens: this.ctx.tokens, podDir: this.dir, claimsDir: this.ctx.claimsDir, placement: { podIP: this.rt.podIP!, hostIP: this.ctx.hostIP }, allocatable: this.ctx.allocatable },
      this.pod,
    );
    this.rt.sandboxReady = true;
    this.writePodFiles();
    this.statusChanged();
    this.ctx.podNetworkChanged();
  }

  private async tearDownSandbox(): Promise<void> {
    if (this.sandbox) await this.ctx.network.destroy(this.sandbox);
    this.sandbox = undefined;
    if (this.rt.sandboxReady) {
      this.rt.sandboxReady = false;
      this.statusChanged();
      this.ctx.podNetworkChanged();
    }
  }

  /** /etc/hosts, /etc/hostname and /etc/resolv.conf of the pod (bind-mounted into each container). */
  private writePodFiles(): void {
    writeFileSync(join(this.dir, 'etc-hostname'), `${podHostname(this.pod)}\n`);
    writeFileSync(join(this.dir, 'etc-resolv.conf'), renderResolvConf(this.pod, this.ctx.hostResolvConf));
    this.rewriteHostsFile();
  }

  /** Rewrites /etc/hosts in place (same inode: it is bind-mounted) when its content changed. */
  rewriteHostsFile(): void {
    if (!this.rt.sandboxReady || this.pod.spec?.hostNetwork) return;
    const content = this.ctx.hostsFile(this.pod, this.rt.podIP!);
    let current = '';
    try {
      current = readFileSync(this.hostsFilePath, 'utf8');
    } catch {
      current = '';
    }
    // writeFileSync truncates and writes the same inode, which the containers' bind mounts show.
    if (current !== content) writeFileSync(this.hostsFilePath, content);
  }

  /** Network-visible state for hosts files: changes trigger a rewrite of every pod's file. */
  networkKey(): string {
    return JSON.stringify([this.podIP, this.ready, !!this.pod.metadata?.deletionTimestamp, this.pod.metadata?.labels]);
  }

  private async setUpVolumes(): Promise<void> {
    // Short first retries: right after binding, the Node authorizer may not know yet that this pod names a Secret.
    for (let attempt = 0; !this.stopping() && this.volumes; attempt++) {
      try {
        this.volumeDirs = await this.volumes.setUp();
        return;
      } catch (err) {
        if (!(err instanceof MountError)) this.ctx.log(`pod ${this.ref}: volumes: ${(err as Error).stack}`);
        this.event('Warning', 'FailedMount', (err as Error).message);
        await Promise.race([sleep(backoffDelay(attempt, { initialMs: 250, maxMs: 16_000 })), this.stopRequested]);
      }
    }
  }

  private async refreshVolumes(): Promise<void> {
    if (this.stopping() || !this.volumeDirs || !this.volumes) return;
    try {
      await this.volumes.refresh();
    } catch (err) {
      this.event('Warning', 'FailedMount', (err as Error).message);
    }
  }

  /** Everything a container start needs, from the current pod spec and API objects. */
  private async prepare(c: V1Container): Promise<{ config: ReturnType<typeof containerRunConfig>; launcher: string; imageID: string; releaseMountPoints: () => void }> {
    const image = mapImage(c.image ?? '', this.ctx.tools);
    if ('notMapped' in image) throw new ContainerConfigError(image.notMapped, 'ErrImageNotMapped');
    if (!this.mapped.has(c.name)) {
      this.mapped.add(c.name);
      this.event('Normal', 'Pulled', `Container image "${c.image}" mapped to ${image.runs} (process kubelet: no image is pulled)`, c);
    }
    const ns = this.pod.metadata!.namespace!;
    const refs = envReferences(c);
    const get = async <T>(kind: string, name: string): Promise<T | undefined> => {
      try {
        return await this.ctx.api.get<T>(`/api/v1/namespaces/${ns}/${kind}/${encodeURIComponent(name)}`);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw new ContainerConfigError((err as Error).message);
      }
    };
    const configMaps = new Map<string, V1ConfigMap | undefined>();
    const secrets = new Map<string, V1Secret | undefined>();
    for (const n of refs.configMaps) configMaps.set(n, await get<V1ConfigMap>('configmaps', n));
    for (const n of refs.secrets) secrets.set(n, await get<V1Secret>('secrets', n));
    const placement = { podIP: this.rt.podIP ?? '', hostIP: this.ctx.hostIP };
    let containerEnv: Map<string, string>;
    try {
      containerEnv = resolveContainerEnv({ pod: this.pod, container: c, placement, services: this.ctx.services(), objects: { configMaps, secrets }, allocatable: this.ctx.allocatable });
    } catch (err) {
      if (err instanceof ContainerConfigError) throw err;
      throw new ContainerConfigError((err as Error).message);
    }
    const cdir = join(this.dir, 'containers');
    const privateRoot = join(cdir, `${c.name}.fs`);
    const hostUsers = parsePasswd(this.ctx.hostPasswd);
    const config = containerRunConfig({
      pod: this.pod,
      container: c,
      image,
      containerEnv,
      hostname: this.pod.spec?.hostNetwork ? osHostname() : podHostname(this.pod),
      volumes: this.volumeDirs ?? new Map(),
      podFiles: { hosts: this.hostsFilePath, hostname: join(this.dir, 'etc-hostname'), resolvConf: join(this.dir, 'etc-resolv.conf') },
      privateRoot,
      hostHome: (uid) => hostUsers.find((u) => u.uid === uid)?.home,
      passwdFile: join(cdir, `${c.name}.passwd`),
      kindOf: (p) => {
        try {
          return statSync(p).isDirectory() ? 'dir' : 'file';
        } catch {
          return 'missing';
        }
      },
    });
    // The container's terminationMessagePath, bind-mounted from a fresh host file per start (the
    // runner reads it into the terminated state's message, as the kubelet does).
    const terminationTarget = c.terminationMessagePath || '/dev/termination-log';
    const terminationLog = join(cdir, `${c.name}.termination-log`);
    mkdirSync(cdir, { recursive: true });
    writeFileSync(terminationLog, '');
    chmodSync(terminationLog, 0o666);
    if (!config.mounts.some((m) => m.target === terminationTarget)) config.mounts.push({ source: terminationLog, target: terminationTarget, readOnly: false, file: true });
    // subPaths that do not exist yet are made as folders, as the kubelet does.
    for (const m of config.mounts) if (!existsSync(m.source) && !m.file) mkdirSync(m.source, { recursive: true });
    // The image's own writable folders: fresh for each start, like a new container's filesystem.
    rmSync(privateRoot, { recursive: true, force: true });
    for (const d of image.privateDirs) {
      const p = privateRoot + d.path;
      mkdirSync(p, { recursive: true });
      chownSync(p, config.uid, config.gid);
      chmodSync(p, d.mode);
    }
    // A uid the host does not know gets an /etc/passwd entry, as the image's would have.
    if (hostUsers.some((u) => u.uid === config.uid)) {
      config.mounts = config.mounts.filter((m) => m.target !== '/etc/passwd');
    } else {
      const name = image.users.find((u) => u.uid === config.uid)?.name ?? `uid${config.uid}`;
      writeFileSync(join(cdir, `${c.name}.passwd`), `${this.ctx.hostPasswd.trimEnd()}\n${name}:x:${config.uid}:${config.gid}:${name}:${config.env.get('HOME') ?? '/'}:/bin/sh\n`);
    }
    const launcher = join(cdir, `${c.name}.launch.sh`);
    writeFileSync(
      launcher,
      launcherScript(
        {
          hostname: config.env.get('HOSTNAME') ?? podHostname(this.pod),
          mounts: config.mounts,
          uid: config.uid,
          gid: config.gid,
          groups: config.groups,
          noNewPrivs: config.noNewPrivs,
          workingDir: config.workingDir,
          env: config.env,
          startMarker: join(cdir, `${c.name}.starting`),
        },
        `container ${c.name} of pod ${this.ref}`,
      ),
      { mode: 0o700 },
    );
    return { config, launcher, imageID: image.imageID, releaseMountPoints: this.ctx.mountPoints.acquire(config.mounts) };
  }

  private statusChanged(): void {
    const key = this.networkKey();
    if (key !== this.lastNetworkKey) {
      this.lastNetworkKey = key;
      this.ctx.podNetworkChanged();
    }
    if (this.stop?.reason === 'removed' || this.stop?.reason === 'shutdown') return;
    this.statusDirty = true;
    this.statusTimer ??= setTimeout(() => {
      this.statusTimer = undefined;
      void this.flushStatus();
    }, 50);
  }

  /** Writes the status if it changed; one write at a time, the last state wins. */
  private async flushStatus(): Promise<void> {
    while (this.statusInFlight) await this.statusInFlight;
    if (!this.statusDirty) return;
    this.statusDirty = false;
    this.statusInFlight = this.putStatus()
      .catch((err: Error) => {
        // The API server may be restarting: try again shortly, or the status stays stale until the next change.
        this.ctx.log(`pod ${this.ref}: status: ${err.message}; retrying`);
        clearTimeout(this.statusRetry);
        this.statusRetry = setTimeout(() => this.statusChanged(), 1000);
      })
      .finally(() => (this.statusInFlight = undefined));
    await this.statusInFlight;
    if (this.statusDirty) await this.flushStatus();
  }

  private async putStatus(): Promise<void> {
    if (this.stop?.reason === 'removed' || this.stop?.reason === 'shutdown') return;
    const { namespace, name } = this.pod.metadata!;
    for (let attempt = 0; attempt < 6; attempt++) {
      // What is sent is computed from a snapshot: containers may change while the write is in flight.
      const snapshot = structuredClone(this.rt);
      const status = computePodStatus(this.pod, snapshot, rfc3339());
      if (JSON.stringify(status) === this.lastSent) return;
      try {
        const body = { ...this.pod, apiVersion: 'v1', kind: 'Pod', status };
        const updated = await this.ctx.api.request<V1Pod>('PUT', `/api/v1/namespaces/${namespace}/pods/${name}/status`, { body });
        this.pod = updated;
        // The same snapshot against the stored pod: what the API server now has, transition times included.
        this.lastSent = JSON.stringify(computePodStatus(this.pod, snapshot, rfc3339()));
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) && !(err instanceof ApiError && err.status >= 500)) throw err;
        await sleep(attempt * 200);
        try {
          const fresh = await this.ctx.api.get<V1Pod>(`/api/v1/namespaces/${namespace}/pods/${name}`);
          if (fresh.metadata?.uid !== this.uid) return;
          this.pod = fresh;
        } catch (e) {
          if (isNotFound(e)) return;
        }
      }
    }
    throw new Error('gave up writing status after repeated conflicts');
  }

  /** The last step of a deletion, as the kubelet's status manager does it. */
  private async deleteFromApi(): Promise<void> {
    const { namespace, name } = this.pod.metadata!;
    // Retried for a minute: the API server may be restarting; the kubelet stopping ends it sooner.
    for (let attempt = 0; attempt < 20 && this.stop?.reason === 'deleted'; attempt++) {
      try {
        await this.ctx.api.request('DELETE', `/api/v1/namespaces/${namespace}/pods/${name}`, {
          body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: this.uid } },
        });
        return;
      } catch (err) {
        if (isNotFound(err) || isConflict(err)) return;
        this.ctx.log(`pod ${this.ref}: delete: ${(err as Error).message}`);
        await sleep(Math.min(1000 * (attempt + 1), 5000));
      }
    }
  }
}

/** uid and home of each /etc/passwd line. */
export function parsePasswd(text: string): Array<{ name: string; uid: number; home: string }> {
  return text
    .split('\n')
    .map((l) => l.split(':'))
    .filter((f) => f.length >= 7 && /^\d+$/.test(f[2]!))
    .map((f) => ({ name: f[0]!, uid: Number(f[2]), home: f[5]! }));
}
