/**
 * A queue trigger across two operator replicas on the real control plane: NATS JetStream in a pod
 * (as in queue-trigger.kube.test.ts) and two real `orrery-operator` binaries (`--backend
 * kubernetes`) electing a leader with a Lease (as in cron-trigger.kube.test.ts). Each replica sends
 * its calls to its own path of a stand-in router on this host (--trigger-url …/a, …/b), so every
 * recorded delivery says which replica made it; what the real router does with a call is
 * queue-trigger.kube.test.ts's concern. A steady stream of messages is published and the leader is
 * SIGKILLed mid-stream (no Lease release, no drain): the other replica takes over the same durable
 * consumer, and in the end
 * - every published message was delivered at least once and nothing is left on the consumer;
 * - a message delivered more than once always carried the same Orrery-Delivery-Id (and no two
 *   messages share one);
 * - only the leader ever consumed: the standby nothing before the kill, the dead leader nothing after.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { eventually, REPO_ROOT, testEnv } from '@orrery/kube-testenv';
import type { QueueTriggerStatus } from '@orrery/spec';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../testing/spawn-server.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { createNatsPod } from './testing/nats-pod.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** The compiled bundle the image runs (the global setup builds it when stale): plain node starts it fast. */
const OPERATOR_BIN = join(REPO_ROOT, 'apps', 'operator', 'dist', 'orrery-operator.mjs');
const GV = 'orrery.dev/v1alpha1';
const MESSAGES = 60;
const PUBLISH_EVERY_MS = 250;
/** The leader dies after this many messages were published: mid-stream. */
const KILL_AFTER = 20;
/** How long the stand-in Function works on a message: a few are in flight when the leader dies. */
const WORK_MS = 150;

const kube = operatorKubeSuite();
let client: KubeClient;
let ns = '';
let router: Server | undefined;
let routerUrl = '';
let nc: NatsConnection | undefined;
const replicas: SpawnedServer[] = [];

interface Delivery {
  /** The replica whose --trigger-url the call came through. */
  replica: string;
  id: string;
  attempt: number;
  body: string;
  /** When the call arrived (ms since the epoch). */
  at: number;
}
const deliveries: Delivery[] = [];

const queueStatus = async (): Promise<QueueTriggerStatus | undefined> =>
  ((await client.get<KubeObject & { status?: Any }>(GV, 'Function', ns, 'stream'))?.status?.triggers?.queue as QueueTriggerStatus[] | undefined)?.[0];
const leads = async (r: SpawnedServer): Promise<boolean> => ((await (await fetch(`${r.url}/healthz`)).json()) as { leader: boolean }).leader;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  client = kube.client;
  ns = await kube.freshNs('queue-failover');
  // The stand-in Function: records the call, works a little, answers 200.
  router = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({
        replica: String(req.url).split('/')[1]!,
        id: String(req.headers['orrery-delivery-id']),
        attempt: Number(req.headers['orrery-delivery-attempt']),
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      });
      setTimeout(() => res.writeHead(200).end('done'), WORK_MS);
    });
  });
  await new Promise<void>((r) => router!.listen(0, '127.0.0.1', r));
  routerUrl = `http://127.0.0.1:${(router.address() as AddressInfo).port}`;
  const natsUrl = await createNatsPod(client, ns);
  const start = (identity: string) =>
    spawnServer(OPERATOR_BIN, [
      '--backend', 'kubernetes', '--kubeconfig', testEnv().adminKubeconfig, '--namespace', ns, '--lease-namespace', ns, '--port', '0',
      '--identity', identity, '--lease-duration-seconds', '2', '--renew-deadline-seconds', '1', '--retry-period-seconds', '0.2',
      '--trigger-url', `${routerUrl}/${identity}`, '--router-url', 'https://fn.example.com',
      '--queue-url', natsUrl,
    ], { DATABASE_URL: '', POD_IP: '' });
  replicas.push(...(await Promise.all([start('a'), start('b')])));
  nc = await eventually('the NATS pod answers through its Service', () => connect({ servers: natsUrl, timeout: 2000 }), 60_000, 500);
}, 120_000);

afterAll(async () => {
  await nc?.close();
  for (const r of replicas) await r.stop('SIGKILL');
  router?.closeAllConnections();
  await new Promise((r) => router?.close(r));
}, 60_000);

describe('queue triggers across operator replicas on Kubernetes', () => {
  it('a SIGKILLed leader mid-stream: the new leader resumes the same durable consumer, nothing is lost, a duplicate keeps its delivery id', { timeout: 150_000 }, async () => {
    try {
      // A pool Function whose Environment does not exist: no pod starts; the stand-in router answers for it.
      await client.apply({
        apiVersion: GV,
        kind: 'Function',
        metadata: { name: 'stream', namespace: ns },
        spec: {
          template: { source: { inline: 'export default () => "ok"' }, environment: 'absent', executor: 'pool', timeoutSeconds: 5 },
          // ackWait 3s: what the dead leader held comes back to the new one soon.
          triggers: { queue: [{ name: 'ticks', stream: 'TICKS', subject: 'ticks.new', maxInFlight: 3, ackWait: '3s', backoff: ['200ms'] }] },
        },
      });
      await eventually('the trigger consumes', async () => (await queueStatus())?.reason === 'Consuming', 60_000, 500);
      const leader = (await leads(replicas[0]!)) ? replicas[0]! : replicas[1]!;
      const standby = leader === replicas[0] ? replicas[1]! : replicas[0]!;
      const leaderName = leader === replicas[0] ? 'a' : 'b';
      const standbyName = leaderName === 'a' ? 'b' : 'a';
      const jsm = await nc!.jetstreamManager();
      const consumerName = `orrery_${ns}_stream_ticks`;
      const created = (await jsm.consumers.info('TICKS', consumerName)).created;

      const js = nc!.jetstream();
      let killedAt = 0;
      for (let i = 0; i < MESSAGES; i++) {
        await js.publish('ticks.new', new TextEncoder().encode(`m-${i}`));
        if (i + 1 === KILL_AFTER) {
          await leader.stop('SIGKILL');
          killedAt = Date.now();
        }
        await sleep(PUBLISH_EVERY_MS);
      }
      expect(killedAt).toBeGreaterThan(0);
      await eventually('the standby leads', () => leads(standby), 20_000, 200);

      const bodies = Array.from({ length: MESSAGES }, (_, i) => `m-${i}`);
      await eventually('every message delivered', () => bodies.every((b) => deliveries.some((d) => d.body === b)), 60_000, 500);
      // Nothing left: all acked, none waiting, on the consumer the first leader made.
      const info = await eventually('the consumer drained', async () => {
        const c = await jsm.consumers.info('TICKS', consumerName);
        return c.num_pending === 0 && c.num_ack_pending === 0 ? c : undefined;
      }, 30_000, 500);
      expect(info.created).toBe(created);

      // One delivery id per message, one message per delivery id.
      const idsOf = new Map<string, Set<string>>();
      for (const d of deliveries) idsOf.set(d.body, (idsOf.get(d.body) ?? new Set()).add(d.id));
      for (const [body, ids] of idsOf) expect([body, ids.size]).toEqual([body, 1]);
      const ids = [...idsOf.values()].map((s) => [...s][0]!);
      expect(new Set(ids).size).toBe(MESSAGES);
      expect(ids.every((id) => /^TICKS:\d+$/.test(id))).toBe(true);
      // A redelivery says so: each delivery of a message has a later attempt than the one before. (A
      // message's first delivery may be missing here: the broker handed it to the leader, which died
      // before it called the Function.) Only what the dead leader held came again, to the new one.
      for (const body of bodies) {
        const attempts = deliveries.filter((d) => d.body === body).map((d) => d.attempt);
        expect([body, attempts]).toEqual([body, [...attempts].sort((x, y) => x - y)]);
        expect([body, new Set(attempts).size]).toEqual([body, attempts.length]);
      }
      expect(deliveries.filter((d) => d.attempt > 1 && (d.replica !== standbyName || d.at < killedAt))).toEqual([]);

      // Only the leader consumed: the standby nothing before the kill, the dead leader nothing after.
      expect(deliveries.filter((d) => d.replica === standbyName && d.at < killedAt)).toEqual([]);
      expect(deliveries.filter((d) => d.replica === leaderName && d.at > killedAt)).toEqual([]);
      expect(deliveries.filter((d) => d.replica === leaderName).length).toBeGreaterThanOrEqual(KILL_AFTER - 5);
      expect(deliveries.filter((d) => d.replica === standbyName).length).toBeGreaterThanOrEqual(MESSAGES - KILL_AFTER);
      // The new leader's own counters: it acked at least what it was handed after the failover.
      const st = await eventually('the new leader counts in status', async () => {
        const s = await queueStatus();
        return s?.reason === 'Consuming' && (s.acked ?? 0) >= MESSAGES - KILL_AFTER ? s : undefined;
      }, 20_000, 500);
      expect(st).toMatchObject({ consumer: consumerName, stream: 'TICKS', ready: true });
    } catch (err) {
      const logs = replicas.map((r, i) => `--- operator ${i === 0 ? 'a' : 'b'} ---\n${r.output().slice(-5000)}`).join('\n');
      throw new Error(`${String(err)}\n${logs}\n--- deliveries ---\n${JSON.stringify(deliveries.slice(-80))}`);
    }
  });
});
