/**
 * `onWorkerLoss: replay` on the real control plane: two worker pods (image `orrery/runtime`) of
 * one Function and a router pod (image `orrery/router`) whose routes say `replay`, each in its
 * own network namespace run by the process kubelet. A POST lands on worker-a, which reads it and
 * never answers; its runtime process is then SIGKILLed, as the OOM killer would. The router sends
 * the request to worker-b with the Orrery-Invocation-Id worker-a was given, and the client gets
 * worker-b's 200 — no error, one replay in the router's stats. The same with child processes and
 * every refusal case: apps/router/src/killed-worker-retry.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKubeConfig, containerLog, containerPid, createNamespace, eventually } from '@orrery/kube-testenv';
import { KubeClient } from './kube-client.ts';
import { type RoutedWorker, startRouterPod, startWorkerPod } from './testing/routed-worker-pods.ts';

const FN = 'phoenix';
const REV = 'phoenix-00001';

/** Reads the body, says so (with the invocation id) on stdout; worker-a then never answers. */
const HANDLER = `export default async (request, ctx) => {
  const body = await request.text();
  const pod = process.env.POD_NAME ?? 'unknown';
  console.log(\`phoenix \${pod} read \${request.method} \${ctx.invocationId ?? '-'} \${body}\`);
  if (pod === 'worker-a') await new Promise(() => {});
  return Response.json({ pod, invocationId: ctx.invocationId ?? null, body });
};
`;

const WORKER: RoutedWorker = { fn: FN, rev: REV, handler: HANDLER, containerConcurrency: 0, timeoutSeconds: 60, drainTimeoutSeconds: 5, terminationGracePeriodSeconds: 10, onWorkerLoss: 'replay' };

let client: KubeClient;
let ns = '';
let dispose: () => Promise<void> = async () => {};
let routerIP = '';

interface Stats { upstreamReplays: number }
const stats = async () => (await (await fetch(`http://${routerIP}:9090/v1/stats`)).json()) as Stats;

beforeAll(async () => {
  client = new KubeClient(adminKubeConfig());
  ({ name: ns, dispose } = await createNamespace('worker-loss'));
  // One after the other: the first makes the code's ConfigMap.
  const a = await startWorkerPod(client, ns, WORKER, 'worker-a');
  const b = await startWorkerPod(client, ns, WORKER, 'worker-b');
  routerIP = await startRouterPod(client, ns, WORKER, [a, b], { app: 'router' });
}, 180_000);

afterAll(async () => {
  await dispose();
});

describe('onWorkerLoss: replay through a router pod (real control plane, process kubelet)', () => {
  it('a POST whose worker pod read it and was SIGKILLed is answered by the other worker pod, with the same invocation id', { timeout: 150_000 }, async () => {
    const before = await eventually('the router answers its stats', stats, 30_000);
    // Requests until one lands on worker-a (the router may pick worker-b first; those answer at once).
    type Answer = { status: number; json: { pod: string; invocationId: string | null; body: string } };
    let hung: { marker: string; answer: Promise<Answer> } | undefined;
    for (let attempt = 0; attempt < 20 && !hung; attempt++) {
      const marker = `order-${attempt}`;
      const answer = fetch(`http://${routerIP}:8080/${ns}/${FN}/`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: marker }).then(async (r) => ({ status: r.status, json: (await r.json()) as Answer['json'] }));
      const first = await Promise.race([answer, new Promise<undefined>((r) => setTimeout(r, 3000, undefined))]);
      if (first === undefined) hung = { marker, answer };
      else expect(first).toEqual({ status: 200, json: { pod: 'worker-b', invocationId: expect.stringMatching(/^[0-9a-f]{32}$/), body: marker } });
    }
    expect(hung, 'no request reached worker-a in 20 tries').toBeDefined();
    const { marker, answer } = hung!;
    const logLine = await eventually('worker-a logged the request it read', async () => {
      const log = containerLog(ns, 'worker-a', 'runtime');
      return new RegExp(`phoenix worker-a read POST ([0-9a-f]{32}) ${marker}`).exec(log) ?? undefined;
    }, 30_000);
    const pid = containerPid(ns, 'worker-a', 'runtime');
    expect(pid, 'the runtime process of worker-a').toBeDefined();
    process.kill(pid!, 'SIGKILL');

    expect(await answer).toEqual({ status: 200, json: { pod: 'worker-b', invocationId: logLine[1], body: marker } });
    const after = await stats();
    expect(after.upstreamReplays - before.upstreamReplays).toBe(1);
    expect(containerLog(ns, 'worker-b', 'runtime')).toContain(`phoenix worker-b read POST ${logLine[1]} ${marker}`);
  });
});
