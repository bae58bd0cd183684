import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FakeApiServer, KubeObject } from './fake-apiserver.ts';

/**
 * fake-kubelet: a minimal stand-in for the ReplicaSet controller and the kubelet, beside the
 * fake-apiserver, so tests run the REAL orrery-runtime from the pod spec the operator renders.
 * It is deliberately small and differs from Kubernetes where the tests do not care:
 * - one container per pod; the image is ignored: every container runs `runtime` (the
 *   orrery-runtime command), with the container's args and env;
 * - no network namespace: every pod's IP is 127.0.0.1 and the container port is remapped to a
 *   free one (`--port <containerPort>` becomes `--port 0`; the port the runtime prints is what
 *   `addressOf(pod)` answers); the runtime registers `$(POD_IP)` with that real port;
 * - volumes (emptyDir, configMap, secret) are temp directories, and mount paths in args and env
 *   values are rewritten to them; `$(VAR)` and downward-API `fieldRef`s are resolved as the
 *   kubelet does;
 * - pods are owned by their Deployment directly (no ReplicaSet objects): `spec.replicas` pods
 *   matching the selector are kept, so a pod relabelled out of the selector is replaced;
 * - readiness is the container's readinessProbe path polled over HTTP; a deleted pod's process
 *   gets SIGTERM at once (no graceful-deletion phase); a process that exits is not restarted.
 */

type Json = Record<string, unknown>;
interface Container {
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  ports?: Array<{ containerPort: number }>;
  readinessProbe?: { httpGet?: { path: string } };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface Volume {
  name: string;
  emptyDir?: unknown;
  configMap?: { name: string; items?: Array<{ key: string; path: string }> };
  secret?: { secretName: string; defaultMode?: number; items?: Array<{ key: string; path: string }> };
}
export interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
}

/** How the "image" is run: the orrery-runtime command (e.g. node + its bin or bundle). */
export interface RuntimeCommand {
  command: string;
  args: string[];
}

/** Finds the ConfigMaps and Secrets volumes refer to (fake-apiserver, or rendered manifests). */
export type ObjectLookup = (kind: 'ConfigMap' | 'Secret', namespace: string, name: string) => KubeObject | Json | undefined;

export class VolumeNotReady extends Error {}

/** `$(VAR)` expansion as the kubelet does it: defined names are replaced, `$$` escapes, others stay. */
export function expandVars(s: string, vars: Record<string, string>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) => (name === undefined ? '$' : (vars[name] ?? m)));
}

/** Rewrites a path under a mount to the host directory standing in for it (longest mount first). */
function remapPath(value: string, mounts: Array<[string, string]>): string {
  for (const [mountPath, hostDir] of mounts) {
    if (value === mountPath) return hostDir;
    if (value.startsWith(`${mountPath}/`)) return hostDir + value.slice(mountPath.length);
  }
  return value;
}

async function writeVolume(dir: string, files: Record<string, Buffer>, items: Array<{ key: string; path: string }> | undefined, mode: number | undefined): Promise<void> {
  const wanted = items ?? Object.keys(files).map((key) => ({ key, path: key }));
  for (const { key, path } of wanted) {
    const content = files[key];
    if (content === undefined) throw new VolumeNotReady(`key ${key} missing`);
    const file = join(dir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
    if (mode !== undefined) await chmod(file, mode);
  }
}

/** Secret `data` is base64 (what the API server returns); `stringData` as written by an apply. */
function secretFiles(secret: Json): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries((secret.data ?? {}) as Record<string, string>)) out[k] = Buffer.from(v, 'base64');
  for (const [k, v] of Object.entries((secret.stringData ?? {}) as Record<string, string>)) out[k] = Buffer.from(v);
  return out;
}

/** The command line and environment a pod's container runs with on this machine. */
export interface PodLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Host directory per mount path (removed when the pod goes). */
  mounts: Record<string, string>;
  readinessPath?: string;
}

/**
 * Translates a pod into a local launch: volumes materialised in `root`, downward API and
 * `$(VAR)` resolved, mount paths and the container port remapped. Throws VolumeNotReady while a
 * referenced ConfigMap or Secret does not exist (the kubelet would keep the pod Pending).
 */
export async function podLaunch(
  pod: { metadata: { name: string; namespace?: string }; spec: PodSpec },
  o: { runtime: RuntimeCommand; lookup: ObjectLookup; root: string; podIP?: string },
): Promise<PodLaunch> {
  const c = pod.spec.containers[0]!;
  const ns = pod.metadata.namespace ?? 'default';
  const podIP = o.podIP ?? '127.0.0.1';
  const mounts: Array<[string, string]> = [];
  for (const m of c.volumeMounts ?? []) {
    const v = (pod.spec.volumes ?? []).find((x) => x.name === m.name);
    if (!v) throw new Error(`pod ${pod.metadata.name}: volumeMount ${m.name} has no volume`);
    const dir = join(o.root, 'volumes', m.name);
    await mkdir(dir, { recursive: true });
    if (v.configMap) {
      const cm = o.lookup('ConfigMap', ns, v.configMap.name);
      if (!cm) throw new VolumeNotReady(`configmap ${v.configMap.name} not found`);
      const files = Object.fromEntries(Object.entries((cm.data ?? {}) as Record<string, string>).map(([k, s]) => [k, Buffer.from(s)]));
      await writeVolume(dir, files, v.configMap.items, undefined);
    } else if (v.secret) {
      const secret = o.lookup('Secret', ns, v.secret.secretName);
      if (!secret) throw new VolumeNotReady(`secret ${v.secret.secretName} not found`);
      await writeVolume(dir, secretFiles(secret), v.secret.items, v.secret.defaultMode);
    }
    mounts.push([m.mountPath, dir]);
  }
  mounts.sort((a, b) => b[0].length - a[0].length);
  const fields: Record<string, string> = { 'status.podIP': podIP, 'metadata.name': pod.metadata.name, 'metadata.namespace': ns };
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    const raw = e.valueFrom?.fieldRef ? fields[e.valueFrom.fieldRef.fieldPath] : e.value;
    if (raw === undefined) throw new Error(`pod ${pod.metadata.name}: env ${e.name} has no value this fake can resolve`);
    env[e.name] = remapPath(expandVars(raw, env), mounts);
  }
  const containerPorts = new Set((c.ports ?? []).map((p) => String(p.containerPort)));
  const args = (c.args ?? []).map((a) => remapPath(expandVars(a, env), mounts));
  for (let i = 0; i < args.length - 1; i++) if (args[i] === '--port' && containerPorts.has(args[i + 1]!)) args[i + 1] = '0';
  const tmp = mounts.find(([p]) => p === '/tmp')?.[1];
  return {
    command: o.runtime.command,
    args: [...o.runtime.args, ...args],
    // A container does not inherit the host's environment; PATH and TMPDIR keep node working.
    env: { PATH: process.env.PATH ?? '', ...(tmp ? { TMPDIR: tmp } : {}), ...env },
    mounts: Object.fromEntries(mounts),
    readinessPath: c.readinessProbe?.httpGet?.path,
  };
}

/** One running container: a real child process. */
export class PodProcess {
  port?: number;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | string>;
  private readonly proc: ChildProcess;

  constructor(readonly launch: PodLaunch) {
    this.proc = spawn(launch.command, launch.args, { env: launch.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.proc.once('exit', (code, sig) => resolve(code ?? sig ?? 'unknown')));
    this.proc.stdout!.on('data', (d: Buffer) => {
      this.stdout += d.toString();
      const m = /^listening http:\/\/\S+:(\d+)/m.exec(this.stdout);
      if (m && this.port === undefined) this.port = Number(m[1]);
    });
    this.proc.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** The readiness probe: GET the probe path on the real port. */
  async ready(): Promise<boolean> {
    if (!this.running || this.port === undefined) return false;
    try {
      const res = await fetch(`http://127.0.0.1:${this.port}${this.launch.readinessPath ?? '/readyz'}`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      return res.status >= 200 && res.status < 400;
    } catch {
      return false;
    }
  }

  /** Waits until the readiness probe passes (or the process exits). */
  async waitReady(timeoutMs = 30_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!(await this.ready())) {
      if (!this.running) throw new Error(`container exited (${await this.exited}) before it was ready; stderr:\n${this.stderr}`);
      if (Date.now() > end) throw new Error(`container not ready within ${timeoutMs} ms; stderr:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(graceMs = 5000): Promise<void> {
    if (this.running) {
      this.proc.kill('SIGTERM');
      const t = setTimeout(() => this.running && this.proc.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(t);
    }
    for (const dir of Object.values(this.launch.mounts)) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

export interface FakeKubeletOptions {
  runtime: RuntimeCommand;
  /** Only Deployments with all these labels get pods (default: every Deployment). */
  deploymentLabels?: Record<string, string>;
  /** How often it reconciles pods and probes readiness (default 100 ms). */
  periodMs?: number;
}

interface Running {
  uid: string;
  process?: PodProcess;
  root: string;
  starting?: Promise<void>;
}

const matchesLabels = (want: Record<string, string>, have: Record<string, string> | undefined) => Object.entries(want).every(([k, v]) => have?.[k] === v);

export class FakeKubelet {
  private readonly pods = new Map<string, Running>();
  /** uids of the Deployments this fake replicates. */
  private readonly replicated = new Set<string>();
  private timer?: NodeJS.Timeout;
  private ticking = false;
  private root = '';
  /** Pods created, for tests. */
  created = 0;

  constructor(
    private readonly api: FakeApiServer,
    private readonly o: FakeKubeletOptions,
  ) {}

  async start(): Promise<void> {
    this.root = await mkdtemp(join(tmpdir(), 'orrery-fake-kubelet-'));
    this.timer = setInterval(() => void this.tick(), this.o.periodMs ?? 100);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    while (this.ticking) await new Promise((r) => setTimeout(r, 10));
    await Promise.all([...this.pods.values()].map(async (p) => {
      await p.starting;
      await p.process?.stop();
    }));
    this.pods.clear();
    await rm(this.root, { recursive: true, force: true });
  }

  /** Where a pod's container really listens (127.0.0.1 and its remapped port). */
  addressOf(pod: { metadata: { namespace?: string; name: string } }): string {
    const p = this.pods.get(`${pod.metadata.namespace}/${pod.metadata.name}`)?.process;
    if (p?.port === undefined) throw new Error(`pod ${pod.metadata.name} runs no process with a port on this fake-kubelet`);
    return `127.0.0.1:${p.port}`;
  }

  processOf(namespace: string, name: string): PodProcess | undefined {
    return this.pods.get(`${namespace}/${name}`)?.process;
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      this.replicate();
      await this.runPods();
    } finally {
      this.ticking = false;
    }
  }

  /** The ReplicaSet controller's part: `spec.replicas` pods matching each Deployment's selector. */
  private replicate(): void {
    const pods = this.api.list('v1', 'Pod');
    for (const d of this.api.list('apps/v1', 'Deployment')) {
      if (this.o.deploymentLabels && !matchesLabels(this.o.deploymentLabels, d.metadata.labels)) continue;
      this.replicated.add(d.metadata.uid!);
      const spec = d.spec as { replicas?: number; selector: { matchLabels: Record<string, string> }; template: { metadata?: { labels?: Record<string, string> }; spec: PodSpec } };
      const owned = pods.filter(
        (p) => p.metadata.namespace === d.metadata.namespace && p.metadata.ownerReferences?.some((r) => r.uid === d.metadata.uid) && matchesLabels(spec.selector.matchLabels, p.metadata.labels),
      );
      // Real pods are owned by a ReplicaSet; this fake has none, so the Deployment owns them.
      const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: d.metadata.name, uid: d.metadata.uid!, controller: true, blockOwnerDeletion: true };
      for (let i = owned.length; i < (spec.replicas ?? 1); i++) {
        this.created++;
        this.api.put(
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: {
              name: `${d.metadata.name}-${randomBytes(3).toString('hex')}`,
              namespace: d.metadata.namespace,
              labels: { ...spec.template.metadata?.labels },
              ownerReferences: [owner],
            },
            spec: structuredClone(spec.template.spec),
            status: { phase: 'Pending' },
          },
          'fake-replicaset-controller',
        );
      }
      // Scale down (newest first) is left out: the tests never lower a pool's size.
    }
  }

  /** The kubelet's part: start a process per pod, probe it, report status; stop deleted pods. */
  private async runPods(): Promise<void> {
    const live = new Map(this.api.list('v1', 'Pod').map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p]));
    for (const [key, r] of this.pods) {
      const pod = live.get(key);
      if (!pod || pod.metadata.uid !== r.uid) {
        this.pods.delete(key);
        void (async () => {
          await r.starting;
          await r.process?.stop();
        })();
      }
    }
    const probes: Array<Promise<void>> = [];
    for (const [key, pod] of live) {
      let r = this.pods.get(key);
      if (!r) {
        // Only pods of the Deployments this fake replicates (others belong to other tests' fakes);
        // a pod already running keeps running when its owner changes (the executor's claim).
        const owner = pod.metadata.ownerReferences?.[0];
        if (!owner || !this.replicated.has(owner.uid)) continue;
        r = { uid: pod.metadata.uid!, root: join(this.root, pod.metadata.name) };
        this.pods.set(key, r);
      }
      if (!r.process && !r.starting) {
        const run = r;
        run.starting = this.startProcess(pod, run).finally(() => (run.starting = undefined));
      }
      if (r.process) probes.push(this.report(key, r.process));
    }
    await Promise.all(probes);
  }

  private async startProcess(pod: KubeObject, r: Running): Promise<void> {
    try {
      const lookup: ObjectLookup = (kind, ns, name) => this.api.get('v1', kind, ns, name);
      const launch = await podLaunch(pod as unknown as { metadata: { name: string; namespace?: string }; spec: PodSpec }, { runtime: this.o.runtime, lookup, root: r.root });
      if (this.pods.get(`${pod.metadata.namespace}/${pod.metadata.name}`) !== r) return; // deleted meanwhile
      r.process = new PodProcess(launch);
    } catch (err) {
      if (!(err instanceof VolumeNotReady)) throw err;
      // Like ContainerCreating: try again on a later tick.
    }
  }

  /** Writes phase, podIP and the Ready condition when they change (read-modify-write in one tick). */
  private async report(key: string, p: PodProcess): Promise<void> {
    const ready = await p.ready();
    const [ns, name] = key.split('/') as [string, string];
    const cur = this.api.get('v1', 'Pod', ns, name);
    if (!cur) return;
    const phase = p.running ? 'Running' : 'Failed';
    const status = (cur.status ?? {}) as { phase?: string; podIP?: string; conditions?: Array<{ type: string; status: string }> };
    const wasReady = status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    if (status.phase === phase && wasReady === ready && status.podIP === '127.0.0.1') return;
    cur.status = {
      phase,
      podIP: '127.0.0.1',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    };
    this.api.put(cur, 'fake-kubelet');
  }
}
