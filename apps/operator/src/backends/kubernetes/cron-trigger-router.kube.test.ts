/**
 * Cron triggers through a real router pod on the real control plane: the orrery-operator binary
 * (--backend kubernetes, elected) runs the schedule and sends each tick to `--trigger-url`, the
 * pod IP of a router pod (image `orrery/router`); the router forwards it to a worker pod (image
 * `orrery/runtime`), both run by the process kubelet in their own network namespaces. As in
 * router-websocket.kube.test.ts, the router reads its routes and the worker's endpoint from a
 * ConfigMap, and the Function on the API server names an Environment that does not exist, so the
 * operator starts no worker of its own: the test's worker pod is the one the router knows.
 * Checked: the worker receives the calls with the trigger's method, path, headers and body plus
 * Orrery-Trigger and Orrery-Scheduled-Time; status.triggers.cron records them as Succeeded with
 * the worker's 200. The stand-in-router version (two replicas, a leader killed):
 * cron-trigger.kube.test.ts.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, testEnv } from '@orrery/kube-testenv';
import type { CronTriggerStatus, OrreryFunction } from '@orrery/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../testing/spawn-server.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { type RoutedWorker, startRouterPod, startWorkerPod } from './testing/routed-worker-pods.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';

interface Seen { method: string; path: string; trigger: string | null; scheduledTime: string | null; contentType: string | null; body: string }

const GV = 'orrery.dev/v1alpha1';
const FN = 'beat';
const REV = 'beat-00001';
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'orrery-operator.mjs');
/** The worker: remembers every call but `GET …/seen`, which lists them. */
const HANDLER = `const seen = [];
export default async (req) => {
  const url = new URL(req.url);
  if (url.pathname.endsWith('/seen')) return Response.json(seen);
  const h = (n) => req.headers.get(n);
  seen.push({ method: req.method, path: url.pathname + url.search, trigger: h('orrery-trigger'), scheduledTime: h('orrery-scheduled-time'), contentType: h('content-type'), body: await req.text() });
  return new Response('tick taken');
};
`;

/** The worker pod the router knows: the operator starts none of its own. */
const WORKER: RoutedWorker = { fn: FN, rev: REV, handler: HANDLER, containerConcurrency: 4, timeoutSeconds: 10, drainTimeoutSeconds: 2, terminationGracePeriodSeconds: 5 };

const suite = operatorKubeSuite();
let client: KubeClient;
let ns = '';
let leaseNs = '';
let routerIP = '';
let operator: SpawnedServer | undefined;


beforeAll(async () => {
  client = suite.client;
  ns = await suite.freshNs('cron-router');
  leaseNs = await suite.freshNs('cron-router-lease');
  await eventually(`ServiceAccount ${ns}/default`, () => client.get('v1', 'ServiceAccount', ns, 'default'), 30_000);
  const workerIP = await startWorkerPod(client, ns, WORKER);
  routerIP = await startRouterPod(client, ns, WORKER, workerIP, { app: 'cron-router' });
  // The router answers for the Function before any tick is sent: a failed first run would be the router's start, not the trigger.
  await eventually('the worker through the router', async () => (await fetch(`http://${routerIP}:8080/${ns}/${FN}/seen`)).ok, 30_000);
}, 150_000);

afterAll(async () => {
  await operator?.stop();
});

describe('cron triggers through a router pod (real control plane, process kubelet)', () => {
  it('each tick reaches the worker through the router with Orrery-Trigger and Orrery-Scheduled-Time, and status records HTTP 200', { timeout: 120_000 }, async () => {
    operator = await spawnServer(bin, [
      '--backend', 'kubernetes', '--kubeconfig', testEnv().adminKubeconfig, '--namespace', ns, '--lease-namespace', leaseNs,
      '--port', '0', '--identity', 'cron-router', '--lease-duration-seconds', '2', '--renew-deadline-seconds', '1', '--retry-period-seconds', '0.2',
      // The in-cluster router, as the chart passes its Service; --router-url (the public address) is not where calls go.
      '--trigger-url', `http://${routerIP}:8080`, '--router-url', 'https://fn.example.com',
    ], { DATABASE_URL: '', POD_IP: '' });

    await client.apply({
      apiVersion: GV,
      kind: 'Function',
      metadata: { name: FN, namespace: ns },
      spec: {
        // An Environment that does not exist: the operator starts no worker; the test's worker pod answers.
        template: { source: { inline: 'export default () => "ok"' }, environment: 'absent', executor: 'pool', timeoutSeconds: 10 },
        triggers: {
          cron: [{ name: 'ten', schedule: '0,10,20,30,40,50 * * * * *', path: '/tick?source=cron', body: '{"kind":"tick"}', headers: [{ name: 'Content-Type', value: 'application/json' }] }],
        },
      },
    });
    const record = async (): Promise<CronTriggerStatus | undefined> => ((await client.get<KubeObject>(GV, 'Function', ns, FN)) as (KubeObject & OrreryFunction) | undefined)?.status?.triggers?.cron?.[0];
    const succeeded = async () => ((await record())?.runs ?? []).filter((r) => r.outcome === 'Succeeded');
    const runs = await eventually('two successful runs', async () => {
      const s = await succeeded();
      return s.length >= 2 ? s : undefined;
    }, 60_000, 300).catch((err: Error) => {
      throw new Error(`${err.message}\noperator output:\n${operator?.output().slice(-4000)}`);
    });

    for (const run of runs) expect(run).toMatchObject({ statusCode: 200, startTime: expect.any(String), durationMs: expect.any(Number) });
    const r = (await record())!;
    expect(r).toMatchObject({ schedule: '0,10,20,30,40,50 * * * * *', lastSuccessfulTime: expect.any(String) });
    // No call failed (a Missed tick on a slow machine is the scheduler's business, not the router's).
    expect(r.runs!.filter((x) => x.outcome === 'Failed')).toEqual([]);

    // What the worker got, read through the router too.
    const seen = (await (await fetch(`http://${routerIP}:8080/${ns}/${FN}/seen`)).json()) as Seen[];
    for (const run of runs) {
      const call = seen.filter((s) => s.scheduledTime === run.scheduledTime);
      expect(call).toHaveLength(1);
      expect(call[0]).toEqual({ method: 'POST', path: '/tick?source=cron', trigger: 'cron/ten', scheduledTime: run.scheduledTime, contentType: 'application/json', body: '{"kind":"tick"}' });
      expect(new Date(run.scheduledTime).getUTCSeconds() % 10).toBe(0);
    }
    // Never twice: every call the worker got is a distinct tick.
    expect(new Set(seen.map((s) => s.scheduledTime)).size).toBe(seen.length);
    const events = await client.list<KubeObject>('v1', 'Event', ns);
    expect(events.items.some((e) => e.reason === 'CronTriggered' && String(e.message).includes('cron trigger ten: POST /tick?source=cron answered 200'))).toBe(true);
  });
});
