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
import { KubeClient } from './kube-client.ts';
import { type RoutedWorker, startRouterPod, startWorkerPod } from './testing/routed-worker-pods.ts';


const FN = 'ws-echo';
const REV = 'ws-echo-00001';
/** The example's own code: what `orrery apply -f examples/ws-echo` deploys. */
const example = parse(readFileSync(join(REPO_ROOT, 'examples', 'ws-echo', 'function.yaml'), 'utf8')) as { spec: { template: { source: { inline: string } } } };

/** The example's code in a worker pod, as its function.yaml would run it. */
const WORKER: RoutedWorker = { fn: FN, rev: REV, handler: example.spec.template.source.inline, containerConcurrency: 1, timeoutSeconds: 30, drainTimeoutSeconds: 5, terminationGracePeriodSeconds: 10 };

let client: KubeClient;
let ns = '';
let dispose: () => Promise<void> = async () => {};
let routerIP = '';

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
  const workerIP = await startWorkerPod(client, ns, WORKER);
  routerIP = await startRouterPod(client, ns, WORKER, workerIP, { app: 'router' });
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
