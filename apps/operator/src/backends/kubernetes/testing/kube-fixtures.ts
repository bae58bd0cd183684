/**
 * What the Kubernetes tests (*.kube.test.ts) put into the real test cluster besides the operator's
 * own objects: router pods (image `orrery/router`, run by the process kubelet), a Redis pod, and
 * platform services the operator's workers reach from their pods — an orrery-registry over a local
 * etcd and an orrery-statesvc, both on the host but bound on the node address (10.245.0.1):
 * pods cannot reach the host's loopback.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdCluster } from '@orrery/etcdcluster';
import { eventually, k8sBinDir, NETWORK, REPO_ROOT } from '@orrery/kube-testenv';
import type { KubeClient, KubeObject } from '../kube-client.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The namespace's `default` ServiceAccount: the ServiceAccount controller creates it shortly after
 * the namespace, and until then the API server refuses pods that would run as it (403).
 */
export async function defaultServiceAccount(client: KubeClient, ns: string): Promise<void> {
  await eventually(`ServiceAccount ${ns}/default`, () => client.get('v1', 'ServiceAccount', ns, 'default'), 30_000);
}

export const ROUTER_IMAGE = 'orrery/router:test';
/** The routes file a router pod reads (an empty table: these tests need its admin listener, not its routes). */
export const ROUTES_CONFIGMAP = 'router-routes';

/** An empty routes table for router pods (`--routes-file`), created once per namespace. */
export async function createRoutesConfigMap(client: KubeClient, ns: string): Promise<void> {
  await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROUTES_CONFIGMAP, namespace: ns }, data: { 'routes.yaml': '' } });
}

export interface RouterPodOptions {
  labels: Record<string, string>;
  /** The admin listener's port; declared as the container port `admin` unless `nameAdminPort` is false. */
  adminPort?: number;
  nameAdminPort?: boolean;
  nodeSelector?: Record<string, string>;
}

/** The router container as the chart runs it, reading routes from a file instead of the operator's store. */
export function routerPodSpec(o: RouterPodOptions): Any {
  const adminPort = o.adminPort ?? 9090;
  return {
    terminationGracePeriodSeconds: 5,
    automountServiceAccountToken: false,
    ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
    containers: [
      {
        name: 'router',
        image: ROUTER_IMAGE,
        args: ['--host=0.0.0.0', '--port=8080', `--admin-port=${adminPort}`, '--router-id=$(POD_NAME)', '--routes-file=/etc/orrery-routes/routes.yaml'],
        env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        ports: [{ name: 'http', containerPort: 8080 }, ...(o.nameAdminPort === false ? [] : [{ name: 'admin', containerPort: adminPort }])],
        readinessProbe: { httpGet: { path: '/readyz', port: adminPort }, periodSeconds: 1 },
        volumeMounts: [{ name: 'routes', mountPath: '/etc/orrery-routes', readOnly: true }],
      },
    ],
    volumes: [{ name: 'routes', configMap: { name: ROUTES_CONFIGMAP } }],
  };
}

export function routerPod(ns: string, name: string, o: RouterPodOptions): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: o.labels }, spec: routerPodSpec(o) };
}

/** The chart's router Deployment, reduced to what the StateSync reconciler touches. */
export function routerDeployment(ns: string, name: string, replicas: number, o: RouterPodOptions): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns, labels: o.labels },
    spec: { replicas, selector: { matchLabels: o.labels }, template: { metadata: { labels: o.labels }, spec: routerPodSpec(o) } },
  };
}

/** A Redis pod (image `redis:7`: Debian's redis-server under the process kubelet) and its Service `redis`. */
export async function createRedis(client: KubeClient, ns: string): Promise<string> {
  const labels = { app: 'redis' };
  await client.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'redis', namespace: ns, labels },
    spec: {
      terminationGracePeriodSeconds: 5,
      containers: [{ name: 'redis', image: 'redis:7', ports: [{ name: 'redis', containerPort: 6379 }], readinessProbe: { tcpSocket: { port: 6379 }, periodSeconds: 1 } }],
    },
  });
  await client.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'redis', namespace: ns }, spec: { selector: labels, ports: [{ name: 'redis', port: 6379, targetPort: 'redis' }] } });
  return `redis://redis.${ns}.svc:6379`;
}

/** A child process that prints `listening <url>` when it is up. */
async function startListening(what: string, args: string[], env: Record<string, string>, pattern: RegExp): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${out}`)), 60_000);
    const check = () => {
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${out}`));
    });
  });
  return { child, url, output: () => out };
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
}

export interface HostRegistry {
  /** `http://10.245.0.1:<port>`: reachable from pods and from the host. */
  url: string;
  /** The registry master key the registry verifies registration credentials with. */
  masterKey: Buffer;
  output(): string;
  /** Instance ids registered under a service, as routers would see them. */
  instances(namespace: string, service: string): Promise<Array<{ instanceId: string; endpoints: Array<{ host: string; port: number }>; labels?: Record<string, string> }>>;
  stop(): Promise<void>;
}

/**
 * orrery-registry (the real binary) over a one-member etcd of the cluster's own etcd build, its
 * public listener on the node address so pods can register. Writes under `orrery.functions.`
 * need the registration credential derived from `masterKey`, as in production.
 */
export async function startHostRegistry(masterKey: Buffer = Buffer.alloc(32, 0x6b)): Promise<HostRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-kube-registry-'));
  const keyFile = join(dir, 'registry-master.key');
  writeFileSync(keyFile, masterKey.toString('hex'), { mode: 0o600 });
  const etcd = await EtcdCluster.start({ size: 1, etcdBin: join(k8sBinDir(), 'etcd') });
  let proc: Awaited<ReturnType<typeof startListening>>;
  try {
    proc = await startListening(
      'orrery-registry',
      [
        join(REPO_ROOT, 'apps', 'registry', 'bin', 'orrery-registry.mjs'),
        '--http-addr', `${NETWORK.hostAddress}:0`, '--admin-addr', '127.0.0.1:0', '--etcd-endpoints', etcd.endpoints().join(','),
        '--registry-master-key-file', keyFile, '--request-timeout', '4s',
        '--region', 'test', '--cluster-id', 'test', '--shutdown-timeout', '5s', '--registry-cleanup-interval', '30s', '--registry-cleanup-delete-limit', '128',
      ],
      { ORRERY_REGISTRY_ADMIN_TOKEN: 'a'.repeat(24), ORRERY_REGISTRY_REPLICATION_TOKEN: 'r'.repeat(24), ORRERY_REGISTRY_PROMETHEUS_SD_TOKEN: 's'.repeat(24) },
      /listening (\S+) admin/,
    );
  } catch (err) {
    await etcd.close();
    throw err;
  }
  return {
    url: proc.url,
    masterKey,
    output: proc.output,
    instances: async (namespace, service) => {
      const res = await fetch(`${proc.url}/api/v1/registry/instances?namespace=${encodeURIComponent(namespace)}&service=${encodeURIComponent(service)}`);
      const body = (await res.json()) as { data?: { instances?: Array<{ instanceId: string; endpoints: Array<{ host: string; port: number }>; labels?: Record<string, string> }> } };
      return body.data?.instances ?? [];
    },
    stop: async () => {
      await stopChild(proc.child);
      await etcd.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface HostStatesvc {
  url: string;
  masterKey: Buffer;
  output(): string;
  stop(): Promise<void>;
}

/** orrery-statesvc (memory driver) on the node address, serving the given keyspaces. */
export async function startHostStatesvc(keyspaces: Array<{ namespace: string; keyspace: string }>, masterKey: Buffer = Buffer.alloc(32, 0x3c)): Promise<HostStatesvc> {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-kube-statesvc-'));
  writeFileSync(join(dir, 'master.key'), masterKey.toString('hex'), { mode: 0o600 });
  writeFileSync(join(dir, 'keyspaces.yaml'), keyspaces.map((k) => `- {namespace: ${k.namespace}, keyspace: ${k.keyspace}}\n`).join(''));
  const proc = await startListening(
    'orrery-statesvc',
    [join(REPO_ROOT, 'apps', 'statesvc', 'bin', 'orrery-statesvc.mjs'), '--host', NETWORK.hostAddress, '--port', '0', '--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')],
    {},
    /listening (http:\/\/\S+)/,
  );
  return {
    url: proc.url,
    masterKey,
    output: proc.output,
    stop: async () => {
      await stopChild(proc.child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
