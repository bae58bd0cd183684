/**
 * A container's environment comes only from its pod spec (and the image and the Services of its
 * namespace, as on a real node): values, the downward API, Secrets and ConfigMaps, $(VAR)
 * expansion; a change in the spec reaches the process; nothing of the kubelet's own environment
 * leaks in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { AppsV1Api, CoreV1Api, type V1Container } from '@kubernetes/client-node';
import { waitFor } from '@orrery/etcdcluster';
import { describe, expect, it } from 'vitest';
import { containerLog, testEnv } from '../cluster-access.ts';
import { namespaceForFile } from '../namespace-for-file.ts';

const { kc, ns } = namespaceForFile('kubelet-env');
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);

/** Prints its environment as one JSON line and its argv, then idles. */
const PRINT_ENV = "console.log('ENV ' + JSON.stringify(process.env)); console.log('ARGV ' + JSON.stringify(process.argv.slice(1))); setInterval(() => {}, 1000)";
const printer = (extra: Partial<V1Container> = {}): V1Container => ({ name: 'app', image: 'orrery/runtime:latest', command: ['node', '-e', PRINT_ENV, '--'], ...extra });

async function envOf(pod: string): Promise<{ env: Record<string, string>; argv: string[] }> {
  const log = await waitFor(`${pod} prints its environment`, 30_000, async () => {
    const l = containerLog(ns(), pod, 'app');
    return l.includes('ARGV ') ? l : undefined;
  }, undefined, 200);
  const lines = log.split('\n');
  const env = JSON.parse(lines.filter((l) => l.startsWith('ENV ')).at(-1)!.slice(4)) as Record<string, string>;
  const argv = JSON.parse(lines.filter((l) => l.startsWith('ARGV ')).at(-1)!.slice(5)) as string[];
  return { env, argv };
}

/** The environment of the process kubelet itself (found by its --dir). */
function kubeletEnv(): Record<string, string> {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes('process-kubelet.mjs') || !cmd.includes(`--dir=${testEnv().kubeletDir}`)) continue;
    const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
    return Object.fromEntries(entries.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  }
  throw new Error('process kubelet not found');
}

describe('container environment', () => {
  it('is made from the pod spec only: values, fieldRef, secretKeyRef, configMapKeyRef, envFrom and $(VAR)', async () => {
    await core.createNamespacedSecret({ namespace: ns(), body: { metadata: { name: 'creds' }, stringData: { password: 'hunter2', token: 't0k' } } });
    await core.createNamespacedConfigMap({ namespace: ns(), body: { metadata: { name: 'settings' }, data: { MODE: 'fast', LEVEL: 'debug' } } });
    await core.createNamespacedService({ namespace: ns(), body: { metadata: { name: 'my-db' }, spec: { selector: { app: 'none' }, ports: [{ name: 'pg', port: 5432 }] } } });
    await core.createNamespacedPod({
      namespace: ns(),
      body: {
        metadata: { name: 'env-pod', labels: { tier: 'backend' }, annotations: { 'example.com/owner': 'team-a' } },
        spec: {
          containers: [
            printer({
              args: ['$(GREETING)', '$$(GREETING)', '$(UNKNOWN_VAR)'],
              envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'CFG_' }, { secretRef: { name: 'missing', optional: true } }],
              env: [
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                { name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
                { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                { name: 'TIER', valueFrom: { fieldRef: { fieldPath: "metadata.labels['tier']" } } },
                { name: 'OWNER', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['example.com/owner']" } } },
                { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
                { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'LEVEL' } } },
                { name: 'MEM_MB', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
                { name: 'GREETING', value: 'hello $(POD_NAME) in $(POD_NAMESPACE) at $(MY_DB_SERVICE_HOST):$(MY_DB_SERVICE_PORT_PG)' },
                { name: 'NODE_ENV', value: 'test' },
              ],
              resources: { limits: { memory: '256Mi' } },
            }),
          ],
        },
      },
    });
    const { env, argv } = await envOf('env-pod');
    const pod = await core.readNamespacedPod({ name: 'env-pod', namespace: ns() });
    const svc = await core.readNamespacedService({ name: 'my-db', namespace: ns() });
    expect(env).toMatchObject({
      POD_NAME: 'env-pod',
      POD_NAMESPACE: ns(),
      POD_IP: pod.status!.podIP!,
      HOST_IP: '10.245.0.1',
      NODE: 'process-node-1',
      TIER: 'backend',
      OWNER: 'team-a',
      PASSWORD: 'hunter2',
      LEVEL: 'debug',
      CFG_MODE: 'fast',
      CFG_LEVEL: 'debug',
      MEM_MB: '256',
      GREETING: `hello env-pod in ${ns()} at ${svc.spec!.clusterIP}:5432`,
      // The spec's value wins over the image's ENV (NODE_ENV=production in its Dockerfile).
      NODE_ENV: 'test',
      NODE_OPTIONS: '--enable-source-maps',
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
      KUBERNETES_SERVICE_PORT: '443',
      MY_DB_SERVICE_HOST: svc.spec!.clusterIP!,
      MY_DB_SERVICE_PORT: '5432',
      MY_DB_PORT: `tcp://${svc.spec!.clusterIP}:5432`,
      HOSTNAME: 'env-pod',
      HOME: '/home/node',
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    });
    expect(argv).toEqual([`hello env-pod in ${ns()} at ${svc.spec!.clusterIP}:5432`, '$(GREETING)', '$(UNKNOWN_VAR)']);
  });

  it("lets nothing of the kubelet's own environment in", async () => {
    await core.createNamespacedPod({ namespace: ns(), body: { metadata: { name: 'bare' }, spec: { enableServiceLinks: false, containers: [printer()] } } });
    const { env } = await envOf('bare');
    const fromImageOrKubernetes = new Set(['PATH', 'HOME', 'HOSTNAME', 'NODE_ENV', 'NODE_OPTIONS']);
    const own = kubeletEnv();
    const leaked = Object.keys(env).filter((k) => !fromImageOrKubernetes.has(k) && !k.startsWith('KUBERNETES_') && own[k] !== undefined);
    expect(leaked).toEqual([]);
    expect(Object.keys(env).sort()).toEqual(
      ['HOME', 'HOSTNAME', 'NODE_ENV', 'NODE_OPTIONS', 'PATH', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT', 'KUBERNETES_SERVICE_PORT_HTTPS', 'KUBERNETES_PORT', 'KUBERNETES_PORT_443_TCP', 'KUBERNETES_PORT_443_TCP_PROTO', 'KUBERNETES_PORT_443_TCP_PORT', 'KUBERNETES_PORT_443_TCP_ADDR'].sort(),
    );
    // The kubelet surely has variables a pod must not see.
    expect(Object.keys(own).length).toBeGreaterThan(3);
  });

  it('gives a rolled-out Deployment the new value from its spec', async () => {
    const template = (value: string) => ({ metadata: { labels: { app: 'roll' } }, spec: { containers: [printer({ env: [{ name: 'FEATURE', value }] })] } });
    await apps.createNamespacedDeployment({ namespace: ns(), body: { metadata: { name: 'roll' }, spec: { replicas: 1, selector: { matchLabels: { app: 'roll' } }, template: template('one') } } });
    const podWith = (value: string) =>
      waitFor(`a roll pod with FEATURE=${value}`, 60_000, async () => {
        const pods = (await core.listNamespacedPod({ namespace: ns(), labelSelector: 'app=roll' })).items.filter((p) => !p.metadata?.deletionTimestamp);
        for (const p of pods) {
          const log = containerLog(ns(), p.metadata!.name!, 'app');
          const line = log.split('\n').find((l) => l.startsWith('ENV '));
          if (line && (JSON.parse(line.slice(4)) as Record<string, string>).FEATURE === value) return p.metadata!.name!;
        }
        return undefined;
      }, undefined, 250);
    const first = await podWith('one');
    await apps.patchNamespacedDeployment({ name: 'roll', namespace: ns(), body: [{ op: 'replace', path: '/spec/template/spec/containers/0/env/0/value', value: 'two' }] });
    const second = await podWith('two');
    expect(second).not.toBe(first);
  });
});
