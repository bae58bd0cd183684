/**
 * A worker pod (image `orrery/runtime`, one revision's code from a ConfigMap) and a router pod
 * (image `orrery/router`) that knows it from a ConfigMap of routes and endpoints, without an
 * operator: the kube tests that send traffic through a real router pod (gRPC, WebSocket, cron
 * ticks) to a real worker, both run by the process kubelet and reached at their pod IPs.
 */
import { eventually } from '@orrery/kube-testenv';
import type { KubeClient, KubeObject } from '../kube-client.ts';
import { ROUTES_CONFIGMAP, routerPodSpec } from './kube-fixtures.ts';

type Pod = KubeObject & { status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> } };

export interface RoutedWorker {
  fn: string;
  rev: string;
  /** The handler module's code (`handler.mjs`). */
  handler: string;
  containerConcurrency: number;
  timeoutSeconds: number;
  drainTimeoutSeconds: number;
  terminationGracePeriodSeconds: number;
  /** The Function's `onWorkerLoss` (absent: fail). */
  onWorkerLoss?: 'fail' | 'replay';
}

/** The pod's IP once it is Ready. */
export async function readyPodIP(client: KubeClient, ns: string, name: string): Promise<string | undefined> {
  const p = await client.get<Pod>('v1', 'Pod', ns, name);
  return p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? p.status.podIP : undefined;
}

/**
 * Pod `podName` (default `worker`; labels `app: <fn>`, its name in env POD_NAME), its code in
 * ConfigMap `<fn>-source` (made by the first worker of the Function); its IP once Ready.
 */
export async function startWorkerPod(client: KubeClient, ns: string, w: RoutedWorker, podName = 'worker'): Promise<string> {
  const source = `${w.fn}-source`;
  if (!(await client.get('v1', 'ConfigMap', ns, source))) {
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: source, namespace: ns }, data: { 'handler.mjs': w.handler } });
  }
  await client.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName, namespace: ns, labels: { app: w.fn } },
    spec: {
      terminationGracePeriodSeconds: w.terminationGracePeriodSeconds,
      automountServiceAccountToken: false,
      containers: [
        {
          name: 'runtime',
          image: 'orrery/runtime:test',
          args: [
            '--host=0.0.0.0', '--port=8080', `--namespace=${ns}`, `--function=${w.fn}`, `--revision=${w.rev}`, '--source-file=/etc/orrery-function/handler.mjs',
            `--container-concurrency=${w.containerConcurrency}`, `--timeout-seconds=${w.timeoutSeconds}`, `--drain-timeout-seconds=${w.drainTimeoutSeconds}`,
          ],
          env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/readyz', port: 8080 }, periodSeconds: 1 },
          volumeMounts: [{ name: 'source', mountPath: '/etc/orrery-function', readOnly: true }],
        },
      ],
      volumes: [{ name: 'source', configMap: { name: source } }],
    },
  });
  return eventually(`the worker pod ${podName} Ready`, () => readyPodIP(client, ns, podName), 60_000);
}

/**
 * Pod `router` routing the worker's Function to `workerIP` (one worker or several; routes and
 * endpoints from the ConfigMap router pods read); its IP once Ready.
 */
export async function startRouterPod(client: KubeClient, ns: string, w: RoutedWorker, workerIP: string | string[], labels: Record<string, string>): Promise<string> {
  const GV = 'orrery.dev/v1alpha1';
  const template = `{source: {inline: "see the worker"}, containerConcurrency: ${w.containerConcurrency}, timeoutSeconds: ${w.timeoutSeconds}${w.onWorkerLoss ? `, onWorkerLoss: ${w.onWorkerLoss}` : ''}}`;
  const endpoints = (Array.isArray(workerIP) ? workerIP : [workerIP]).map((ip) => `- {namespace: ${ns}, function: ${w.fn}, revision: ${w.rev}, address: "${ip}:8080", ready: true}\n`).join('');
  await client.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: ROUTES_CONFIGMAP, namespace: ns },
    data: {
      'routes.yaml': `apiVersion: ${GV}\nkind: Function\nmetadata: {name: ${w.fn}, namespace: ${ns}}\nspec: {template: ${template}}\n---\napiVersion: ${GV}\nkind: Revision\nmetadata: {name: ${w.rev}, namespace: ${ns}}\nspec: {function: ${w.fn}, template: ${template}}\n`,
      'endpoints.yaml': endpoints,
    },
  });
  const spec = routerPodSpec({ labels });
  spec.containers[0].args.push('--endpoints-file=/etc/orrery-routes/endpoints.yaml');
  await client.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'router', namespace: ns, labels }, spec });
  return eventually('the router pod Ready', () => readyPodIP(client, ns, 'router'), 60_000);
}
