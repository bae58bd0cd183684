/**
 * A queue trigger on the local platform, end to end: a real orrery-operator started with
 * --queue-url, a real orrery-router, a deploy-executor Function whose worker runs the real runtime,
 * and a real NATS JetStream server. Messages published to the subject reach the Function through
 * the router, a poisoned one is dead-lettered after maxDeliver, the Function's status counts them,
 * the KPA takes the revision to zero once the queue is drained and idle, and a new message wakes it.
 * The dispatcher's own rules (restart, maxInFlight, backoff) are backends/local/local-queue-dispatch.int.test.ts.
 */
import { createTestDatabase } from '@orrery/db';
import { freePort } from '@orrery/etcdcluster';
import type { OrreryFunction, QueueTriggerStatus } from '@orrery/spec';
import { AckPolicy, connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Platform, revisionReady, startPlatform } from '../../testing/platform.ts';
import { startNatsServer, type TestNatsServer } from './testing/nats-server.ts';

const HANDLER = `export default async (req) => {
  const body = await req.text();
  return body === 'poison' ? new Response('refused', { status: 500 }) : new Response('done ' + body);
};`;

let nats: TestNatsServer;
let nc: NatsConnection;
let p: Platform;
let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

const queueStatus = async (): Promise<QueueTriggerStatus | undefined> => ((await p.store.get('Function', 'default', 'orders')) as OrreryFunction | undefined)?.status?.triggers?.queue?.[0];
const publish = (body: string) => nc.jetstream().publish('orders.new', new TextEncoder().encode(body));

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  // The operator sends triggered calls to the router, which starts after it: its port is chosen first.
  const routerPort = await freePort();
  // The operator's store on the test Postgres: an embedded PGlite's migrations take tens of seconds on a busy machine.
  db = await createTestDatabase('orrery_queue_platform');
  p = await startPlatform({
    operatorArgs: [
      '--database-url', db.url,
      '--queue-url', nats.url, '--router-url', `http://127.0.0.1:${routerPort}`,
      '--autoscaler-stable-window', '2s', '--autoscaler-scale-to-zero-grace-period', '1s', '--autoscaler-tick', '250ms',
    ],
    routerArgs: ['--port', String(routerPort)],
  });
}, 60_000);

afterAll(async () => {
  await p?.stop();
  await nc?.close();
  await nats?.stop();
  await db?.drop();
}, 30_000);

describe('a queue trigger on the local platform', () => {
  it('delivers through the router, dead-letters the poisoned message, counts both, scales to zero when drained and wakes on a message', { timeout: 60_000 }, async () => {
    await p.store.apply({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'orders', namespace: 'default' },
      spec: {
        template: { source: { inline: HANDLER }, timeoutSeconds: 10 },
        triggers: { queue: [{ name: 'new', stream: 'ORDERS', subject: 'orders.new', maxInFlight: 2, maxDeliver: 2, backoff: ['100ms'], deadLetterSubject: 'orders.dead' }] },
      },
    });
    await revisionReady(p, 'orders-00001', 30_000);
    await p.publishRoutes();
    await expect.poll(async () => (await queueStatus())?.reason, { timeout: 15_000 }).toBe('Consuming');
    const jsm = await nc.jetstreamManager();
    await jsm.consumers.add('ORDERS', { durable_name: 'dead-reader', filter_subject: 'orders.dead', ack_policy: AckPolicy.Explicit });

    for (const body of ['a', 'b', 'poison', 'c']) await publish(body);
    const dead = await (await nc.jetstream().consumers.get('ORDERS', 'dead-reader')).next({ expires: 15_000 });
    expect(dead?.string()).toBe('poison');
    expect(dead?.headers?.get('Orrery-Dead-Letter-Reason')).toBe('the Function answered 500 (delivery 2 of 2)');
    dead?.ack();
    await expect.poll(queueStatus, { timeout: 15_000 }).toMatchObject({ acked: 3, deadLettered: 1, delivered: 5, redelivered: 1, pending: 0, ready: true });

    // Drained and idle: the KPA takes the revision to zero (stable window 2 s, grace 1 s).
    await expect.poll(async () => (await p.revision('orders-00001'))?.status?.desiredScale, { timeout: 20_000 }).toBe(0);
    await expect.poll(() => p.endpoints().filter((e) => e.revision === 'orders-00001' && e.ready).length, { timeout: 15_000 }).toBe(0);

    // A message wakes it: the router's activator and the queue backlog both ask for a worker.
    await publish('d');
    await expect.poll(async () => (await queueStatus())?.acked, { timeout: 30_000 }).toBe(4);
  });
});
