/**
 * A queue trigger on the real control plane: NATS JetStream in a pod (the official `nats` image,
 * run by the process kubelet as Debian's nats-server) behind a Service, the real operator binary
 * (`--backend kubernetes`, leader by its Lease) connected to it with --queue-url, a real router
 * and registry on the host, and a deploy-executor Function whose worker pod runs the real runtime.
 * Messages published to the subject are processed through the router, a poisoned one is
 * dead-lettered after maxDeliver with a Warning Event, and the counters land in the Function's
 * status through the trigger's own field manager.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@orrery/etcdcluster';
import { eventually, REPO_ROOT, testEnv } from '@orrery/kube-testenv';
import type { QueueTriggerStatus } from '@orrery/spec';
import { AckPolicy, connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../testing/spawn-server.ts';
import { type KubeClient, type KubeObject, statusCode } from './kube-client.ts';
import { defaultServiceAccount, type HostRegistry, startHostRegistry } from './testing/kube-fixtures.ts';
import { createNatsPod } from './testing/nats-pod.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** The compiled bundles the images run (the global setup builds them when stale): plain node starts them fast. */
const OPERATOR_BIN = join(REPO_ROOT, 'apps', 'operator', 'dist', 'orrery-operator.mjs');
const ROUTER_BIN = join(REPO_ROOT, 'apps', 'router', 'dist', 'orrery-router.mjs');
const GV = 'orrery.dev/v1alpha1';
const kube = operatorKubeSuite();
let client: KubeClient;
let ns = '';
let dir = '';
let registry: HostRegistry | undefined;
let operator: SpawnedServer | undefined;
let router: SpawnedServer | undefined;
let nc: NatsConnection | undefined;

const HANDLER = `export default async (req) => {
  const body = await req.text();
  return body === 'poison' ? new Response('refused', { status: 500 }) : new Response('done ' + body);
};`;

const queueStatus = async (): Promise<QueueTriggerStatus | undefined> =>
  ((await client.get<KubeObject & { status?: Any }>(GV, 'Function', ns, 'orders'))?.status?.triggers?.queue as QueueTriggerStatus[] | undefined)?.[0];

beforeAll(async () => {
  client = kube.client;
  ns = await kube.freshNs('queue');
  await defaultServiceAccount(client, ns);
  dir = mkdtempSync(join(tmpdir(), 'orrery-kube-queue-'));
  const [natsUrl, reg, routerPort] = await Promise.all([createNatsPod(client, ns), startHostRegistry(), freePort()]);
  registry = reg;
  writeFileSync(join(dir, 'store.token'), 'queue-store-token-0123456789\n', { mode: 0o600 });
  writeFileSync(join(dir, 'registry.key'), registry.masterKey.toString('hex'), { mode: 0o600 });
  // The operator starts before the broker answers, as in a fresh install: it retries until it does.
  operator = await spawnServer(OPERATOR_BIN, [
    '--backend', 'kubernetes', '--kubeconfig', testEnv().adminKubeconfig, '--namespace', ns, '--lease-namespace', ns, '--port', '0',
    '--lease-duration-seconds', '2', '--renew-deadline-seconds', '1', '--retry-period-seconds', '0.2',
    '--store-token-file', join(dir, 'store.token'),
    '--registry-url', registry.url, '--registry-master-key-file', join(dir, 'registry.key'),
    '--router-url', `http://127.0.0.1:${routerPort}`,
    '--queue-url', natsUrl,
  ], { DATABASE_URL: '', POD_IP: '' });
  router = await spawnServer(ROUTER_BIN, [
    '--port', String(routerPort), '--admin-port', '0', '--store-url', operator.url, '--store-token-file', join(dir, 'store.token'),
    '--registry-url', registry.url, '--registry-namespace', ns, '--autoscaler-url', operator.url,
  ]);
  nc = await eventually('the NATS pod answers through its Service', () => connect({ servers: natsUrl, timeout: 2000 }), 60_000, 500);
}, 120_000);

afterAll(async () => {
  await nc?.close();
  await router?.stop();
  await operator?.stop();
  await registry?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('queue triggers on Kubernetes', () => {
  it("the API server itself refuses a dead-letter subject the trigger reads and a repeated trigger name (the CRD's CEL rules)", async () => {
    const refused = async (queue: Array<Record<string, unknown>>) => {
      const err = await client
        .apply({ apiVersion: GV, kind: 'Function', metadata: { name: 'bad', namespace: ns }, spec: { template: { source: { inline: 'x' } }, triggers: { queue } } })
        .then(() => undefined, (e: unknown) => e);
      expect(statusCode(err)).toBe(422);
      return String((err as { body?: unknown }).body);
    };
    expect(await refused([{ name: 'a', stream: 'S', subject: 'orders.*', deadLetterSubject: 'orders.dead' }])).toContain('(queue_dead_letter_loop)');
    expect(await refused([{ name: 'a', stream: 'S', subject: 'a.b' }, { name: 'a', stream: 'S', subject: 'a.c' }])).toContain('(trigger_name_duplicate)');
    // 'a.b' is not 'aXb': the filter's dots are literal in the rule's expression.
    await client.apply({ apiVersion: GV, kind: 'Function', metadata: { name: 'fine', namespace: ns }, spec: { template: { source: { inline: 'x' } }, triggers: { queue: [{ name: 'a', stream: 'FINE', subject: 'a.b', deadLetterSubject: 'aXb' }] } } });
    await client.delete(GV, 'Function', ns, 'fine');
  });

  it('processes published messages through the router, dead-letters a poisoned one, and records both in status and Events', { timeout: 120_000 }, async () => {
    try {
      await client.apply({
        apiVersion: GV,
        kind: 'Function',
        metadata: { name: 'orders', namespace: ns },
        spec: {
          template: { source: { inline: HANDLER }, timeoutSeconds: 10 },
          triggers: { queue: [{ name: 'new', stream: 'ORDERS', subject: 'orders.new', maxInFlight: 2, maxDeliver: 2, backoff: ['200ms'], deadLetterSubject: 'orders.dead' }] },
        },
      });
      await eventually('the trigger consumes', async () => (await queueStatus())?.reason === 'Consuming', 60_000, 500);
      const jsm = await nc!.jetstreamManager();
      await jsm.consumers.add('ORDERS', { durable_name: 'dead-reader', filter_subject: 'orders.dead', ack_policy: AckPolicy.Explicit });
      for (const body of ['a', 'b', 'poison', 'c']) await nc!.jetstream().publish('orders.new', new TextEncoder().encode(body));

      const dead = await (await nc!.jetstream().consumers.get('ORDERS', 'dead-reader')).next({ expires: 60_000 });
      expect(dead?.string()).toBe('poison');
      expect(dead?.headers?.get('Orrery-Dead-Letter-Reason')).toBe('the Function answered 500 (delivery 2 of 2)');
      expect(dead?.headers?.get('Orrery-Dead-Letter-Function')).toBe(`${ns}/orders`);
      dead?.ack();

      const st = await eventually('counters in status', async () => {
        const s = await queueStatus();
        return s?.acked === 3 && s.deadLettered === 1 && s.pending === 0 ? s : undefined;
      }, 30_000, 500);
      expect(st).toMatchObject({ consumer: `orrery_${ns}_orders_new`, stream: 'ORDERS', ready: true, delivered: 5, redelivered: 1 });
      // The trigger's list has its own field manager: the Function reconciler's applies never drop it.
      const fn = (await client.get<KubeObject>(GV, 'Function', ns, 'orders'))!;
      expect(fn.metadata.managedFields?.map((m) => m.manager)).toContain('orrery-queue-trigger');
      const events = await eventually('a QueueDeadLettered Event', async () => {
        const list = (await client.list<KubeObject & Any>('v1', 'Event', ns)).items.filter((e) => e.reason === 'QueueDeadLettered');
        return list.length ? list : undefined;
      }, 20_000, 500);
      expect(events[0]).toMatchObject({ type: 'Warning', involvedObject: expect.objectContaining({ kind: 'Function', name: 'orders' }) });
      expect(events[0]!.message).toMatch(/^queue trigger new: message ORDERS:\d+ published to orders\.dead after 2 deliveries/);
    } catch (err) {
      throw new Error(`${String(err)}\n--- operator ---\n${operator?.output().slice(-6000)}\n--- router ---\n${router?.output().slice(-3000)}`);
    }
  });
});
