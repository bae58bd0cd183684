/**
 * Issue 25, WebSocket through the router on the real control plane: a worker pod (image
 * `orrery/runtime`, the code of examples/ws-echo, containerConcurrency 1) and a router pod (image
 * `orrery/router`, routes and endpoints from a ConfigMap), each in its own network namespace run
 * by the process kubelet, reached from the host at their pod IPs. A real `ws` client echoes
 * through the router, the open socket is one in-flight request there (a second handshake waits
 * for it), and deleting the worker pod — the kubelet's SIGTERM, as a revision shutdown does —
 * reaches the client as close code 1001. The same flows with child processes, in more detail:
 * apps/runtime/src/websocket-router.int.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { parse } from 'yaml';
import { adminKubeConfig, createNamespace, eventually, REPO_ROOT } from '@orrery/kube-testenv';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { ROUTES_CONFIGMAP, routerPodSpec } from './testing/kube-fixtures.ts';

type Pod = KubeObject & { status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> } };

const FN = 'ws-echo';
const REV = 'ws-echo-00001';
/** The example's own code: what `orrery apply -f examples/ws-echo` deploys. */
const example = parse(readFileSync(join(REPO_ROOT, 'examples', 'ws-echo', 'function.yaml'), 'utf8')) as { spec: { template: { source: { inline: string } } } };

let client: KubeClient;
let ns = '';
let dispose: () => Promise<void> = async () => {};
let routerIP = '';
let workerIP = '';

const ready = async (name: string): Promise<string | undefined> => {
  const p = await client.get<Pod>('v1', 'Pod', ns, name);
  return p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? p.status.podIP : undefined;
};
const routerStats = async () =>
  (await (await fetch(`http://${routerIP}:9090/v1/stats`)).json()) as { revisions: Array<{ revision: string; inflight: number; queued: number }> };
const revision = async () => (await routerStats()).revisions.find((r) => r.revision === REV);

function open(path: string): Promise<{ ws: WebSocket; next(): Promise<string>; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${routerIP}:8080/${ns}/${FN}${path}`);
    const inbox: string[] = [];
    const waiting: Array<(m: string) => void> = [];
    ws.on('message', (d) => {
      const m = (d as Buffer).toString();
      const w = waiting.shift();
      if (w) w(m);
      else inbox.push(m);
    });
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.once('error', reject);
    ws.once('open', () => resolve({ ws, next: () => new Promise<string>((r) => (inbox.length > 0 ? r(inbox.shift()!) : waiting.push(r))), closed }));
  });
}

beforeAll(async () => {
  client = new KubeClient(adminKubeConfig());
  ({ name: ns, dispose } = await createNamespace('router-ws'));
  await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ws-echo-source', namespace: ns }, data: { 'handler.mjs': example.spec.template.source.inline } });
  await client.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'worker', namespace: ns, labels: { app: 'ws-echo' } },
    spec: {
      terminationGracePeriodSeconds: 10,
      automountServiceAccountToken: false,
      containers: [
        {
          name: 'runtime',
          image: 'orrery/runtime:test',
          args: ['--host=0.0.0.0', '--port=8080', `--namespace=${ns}`, `--function=${FN}`, `--revision=${REV}`, '--source-file=/etc/orrery-function/handler.mjs', '--container-concurrency=1', '--timeout-seconds=30', '--drain-timeout-seconds=5'],
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/readyz', port: 8080 }, periodSeconds: 1 },
          volumeMounts: [{ name: 'source', mountPath: '/etc/orrery-function', readOnly: true }],
        },
      ],
      volumes: [{ name: 'source', configMap: { name: 'ws-echo-source' } }],
    },
  });
  workerIP = await eventually('the worker pod Ready', () => ready('worker'), 60_000);
  const template = `{source: {inline: "see the worker"}, containerConcurrency: 1, timeoutSeconds: 30}`;
  await client.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: ROUTES_CONFIGMAP, namespace: ns },
    data: {
      'routes.yaml': `apiVersion: orrery.dev/v1alpha1\nkind: Function\nmetadata: {name: ${FN}, namespace: ${ns}}\nspec: {template: ${template}}\n---\napiVersion: orrery.dev/v1alpha1\nkind: Revision\nmetadata: {name: ${REV}, namespace: ${ns}}\nspec: {function: ${FN}, template: ${template}}\n`,
      'endpoints.yaml': `- {namespace: ${ns}, function: ${FN}, revision: ${REV}, address: "${workerIP}:8080", ready: true}\n`,
    },
  });
  const spec = routerPodSpec({ labels: { app: 'router' } });
  spec.containers[0].args.push('--endpoints-file=/etc/orrery-routes/endpoints.yaml');
  await client.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'router', namespace: ns, labels: { app: 'router' } }, spec });
  routerIP = await eventually('the router pod Ready', () => ready('router'), 60_000);
}, 150_000);

afterAll(async () => {
  await dispose();
});

describe('WebSocket through a router pod to a worker pod (real control plane, process kubelet)', () => {
  it('echoes, holds one in-flight slot while open, queues a second handshake, and a deleted worker pod closes the client with 1001', { timeout: 120_000 }, async () => {
    const first = await eventually('a WebSocket through the router', () => open('/chat').catch(() => undefined), 30_000);
    first.ws.send('hello from the host');
    expect(await first.next()).toBe('hello from the host');
    first.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(Buffer.from(await first.next(), 'latin1')).toEqual(Buffer.from([1, 2, 3]));
    expect(await revision()).toMatchObject({ inflight: 1, queued: 0 });

    // containerConcurrency 1: the second waits in the router's queue until the first closes.
    let secondOpen = false;
    const second = open('/second').then((c) => ((secondOpen = true), c));
    await eventually('the second handshake queued', async () => (await revision())?.queued === 1, 20_000);
    expect(secondOpen).toBe(false);
    first.ws.close();
    await first.closed;
    const b = await second;
    b.ws.send('second');
    expect(await b.next()).toBe('second');
    expect(await revision()).toMatchObject({ inflight: 1, queued: 0 });

    // The revision's worker goes away (scale-down, a new revision): the kubelet's SIGTERM drains it.
    await client.delete('v1', 'Pod', ns, 'worker');
    expect(await b.closed).toBe(1001);
    await eventually('the router released the slot', async () => (await revision())?.inflight === 0, 20_000);
  });
});
