/**
 * What a Kubernetes test (a *.kube.test.ts file) uses to reach the shared test cluster: its
 * kubeconfig, a fresh namespace per test, the harness controls (restart the API server, compact
 * etcd), the audit log, container logs and pids kept by the process kubelet, and helm.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { eventually } from './eventually.ts';
import type { TestClusterInfo } from './test-cluster.ts';

export function testEnv(): TestClusterInfo {
  const info = inject('kubeTestEnv');
  if (!info) throw new Error('no test cluster: Kubernetes tests run in the vitest project "kubernetes" (files named *.kube.test.ts)');
  return info;
}

/** A KubeConfig for the cluster admin (group system:masters). */
export function adminKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(testEnv().adminKubeconfig);
  return kc;
}

let nsCounter = 0;
/**
 * Creates a namespace named `<prefix>-<pid>-<n>` and returns its name; `dispose` deletes it (the
 * real namespace controller then removes everything in it).
 */
export async function createNamespace(prefix: string, labels: Record<string, string> = {}): Promise<{ name: string; dispose: () => Promise<void> }> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const name = `${prefix}-${process.pid}-${++nsCounter}`.slice(0, 63);
  await core.createNamespace({ body: { metadata: { name, labels: { 'orrery.dev/test': 'true', ...labels } } } });
  // The controller manager adds the default ServiceAccount a moment later; a pod created before
  // it exists is refused by the ServiceAccount admission plugin.
  await eventually(`ServiceAccount ${name}/default`, () => core.readNamespacedServiceAccount({ name: 'default', namespace: name }), 30_000, 100);
  return {
    name,
    dispose: async () => {
      await core.deleteNamespace({ name }).catch(() => undefined);
    },
  };
}

async function control(path: string): Promise<unknown> {
  const env = testEnv();
  const res = await fetch(`${env.controlURL}${path}`, { method: 'POST', headers: { authorization: `Bearer ${env.controlToken}` } });
  const body = (await res.json()) as { ok: boolean; result?: unknown; error?: string };
  if (!body.ok) throw new Error(`kube-testenv ${path}: ${body.error}`);
  return body.result;
}

/** Stops and starts kube-apiserver (every watch in the cluster breaks). */
export const restartApiServer = (): Promise<void> => control('/restart-apiserver').then(() => undefined);
/** Compacts etcd to its current revision; returns that revision. */
export const compactEtcd = (): Promise<number> => control('/compact-etcd') as Promise<number>;

/** One line of the API server's audit log (level Metadata). */
export interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string; groups?: string[]; extra?: Record<string, string[]> };
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string; subresource?: string };
  responseStatus?: { code?: number; reason?: string; message?: string };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
}

/**
 * Audit events so far that match `filter`. The API server appends one JSON line per event and may
 * be in the middle of one as we read: a last line without its newline is not an event yet.
 */
export function auditEvents(filter: (e: AuditEvent) => boolean = () => true): AuditEvent[] {
  const file = testEnv().auditLog;
  if (!existsSync(file)) return [];
  const out: AuditEvent[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.pop(); // '' after the last newline, or the line still being written
  for (const line of lines) {
    if (!line) continue;
    const e = JSON.parse(line) as AuditEvent;
    if (e.stage === 'ResponseComplete' && filter(e)) out.push(e);
  }
  return out;
}

/** The process kubelet's folder of a pod (`pods/<namespace>_<name>_<uid>`), if it ran here. */
export function podDir(namespace: string, pod: string): string | undefined {
  const root = join(testEnv().kubeletDir, 'pods');
  if (!existsSync(root)) return undefined;
  const hit = readdirSync(root)
    .filter((d) => d.startsWith(`${namespace}_${pod}_`))
    .sort()
    .at(-1);
  return hit ? join(root, hit) : undefined;
}

/** Everything a container printed so far (stdout and stderr, like `kubectl logs`). */
export function containerLog(namespace: string, pod: string, container: string): string {
  const dir = podDir(namespace, pod);
  const file = dir && join(dir, 'containers', `${container}.log`);
  return file && existsSync(file) ? readFileSync(file, 'utf8') : '';
}

/** Host pid of a running container's process (for fault injection: SIGKILL a leader). */
export function containerPid(namespace: string, pod: string, container: string): number | undefined {
  const dir = podDir(namespace, pod);
  const file = dir && join(dir, 'containers', `${container}.pid`);
  if (!file || !existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Runs the cache's helm against the test cluster as the admin. */
export function helm(args: string[], opts: { timeoutMs?: number } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = testEnv();
  return new Promise((resolve) => {
    execFile(
      join(env.binDir, 'helm'),
      args,
      { env: { ...process.env, KUBECONFIG: env.adminKubeconfig, HELM_CACHE_HOME: join(env.dir, 'helm', 'cache'), HELM_CONFIG_HOME: join(env.dir, 'helm', 'config'), HELM_DATA_HOME: join(env.dir, 'helm', 'data') }, timeout: opts.timeoutMs ?? 300_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
