/**
 * The queue-trigger dispatcher (trigger/queue/queue-triggers.ts) against a real NATS JetStream
 * server (Debian's nats-server) and the real local resource store (on the test Postgres) and trigger status: at-least-once delivery (ack after a 2xx only, a delivery cut off
 * by a stopping dispatcher comes back to the next one, nothing acked comes back), maxInFlight,
 * nak with backoff then the dead letter after maxDeliver, the status it writes, the KPA backlog,
 * and a clear NoBroker status without a broker. The Function is an HTTP server standing in for
 * the router (the invoker is the real RouterTriggerInvoker); the platform path is
 * trigger/queue/queue-trigger-platform.int.test.ts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect as connectDb, createTestDatabase } from '@orrery/db';
import { FunctionSchema, type OrreryFunction, type QueueTriggerStatus } from '@orrery/spec';
import { createLocalStore, type ResourceStore } from '@orrery/store';
import { AckPolicy, connect, headers, type NatsConnection } from 'nats';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalTriggerStatus } from './local-trigger-status.ts';
import { EventRecorder } from '../../events/event-recorder.ts';
import { JetStreamConsumers } from '../../trigger/queue/jetstream-consumers.ts';
import { QueueTriggerRunner } from '../../trigger/queue/queue-trigger-runner.ts';
import { queueTriggersOf } from '../../trigger/queue/queue-trigger-settings.ts';
import { QueueTriggers } from '../../trigger/queue/queue-triggers.ts';
import { startNatsServer, type TestNatsServer } from '../../trigger/queue/testing/nats-server.ts';
import { RouterTriggerInvoker } from '../../trigger/router-trigger-invoker.ts';

const NS = 'shop';
let nats: TestNatsServer;
let nc: NatsConnection;
let conn: ReturnType<typeof connectDb>;
let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let store: ResourceStore;
let fnServer: Server;
let routerUrl = '';
const recorded: Array<{ name: string; reason: string; message: string }> = [];

/** What the Function saw; `answer` decides its reply per request. */
interface Seen {
  path: string;
  body: string;
  headers: IncomingMessage['headers'];
}
const seen: Seen[] = [];
let inFlight = 0;
let maxInFlightSeen = 0;
let answer: (s: Seen) => Promise<number> = async () => 200;

const running: QueueTriggers[] = [];
const publish = async (subject: string, body: string, msgId?: string) => {
  const h = headers();
  if (msgId) h.set('Nats-Msg-Id', msgId);
  await nc.jetstream().publish(subject, new TextEncoder().encode(body), { headers: h });
};
const fn = (name: string, queue: Array<Record<string, unknown>>) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: NS },
  spec: { template: { source: { inline: 'x' }, timeoutSeconds: 5 }, triggers: { queue } },
});
const statusOf = async (name: string): Promise<QueueTriggerStatus[]> => ((await store.get('Function', NS, name)) as OrreryFunction | undefined)?.status?.triggers?.queue ?? [];

function dispatcher(broker = true): QueueTriggers {
  const q = new QueueTriggers({
    store,
    statusStore: new LocalTriggerStatus(store),
    invoker: new RouterTriggerInvoker({ routerUrl: () => routerUrl }),
    broker: broker ? { servers: [nats.url], credentialsFile: undefined } : undefined,
    events: new EventRecorder({
      write: async (target, event) => {
        recorded.push({ name: target.name, reason: event.reason, message: event.message });
        return 1;
      },
    }),
    log: () => {},
    warn: () => {},
    pollMs: 200,
    flushMs: 200,
    pullExpiresMs: 1000,
    drainMs: 500,
  });
  running.push(q);
  q.start();
  return q;
}

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  // The local store on the test Postgres: its migrations take a moment there, tens of seconds in
  // an embedded PGlite on a busy machine; the store's code is the same.
  db = await createTestDatabase('orrery_queue');
  conn = connectDb({ url: db.url, max: 4 });
  store = await createLocalStore(conn, { pollMs: 100 });
  fnServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { path: req.url ?? '', body: Buffer.concat(chunks).toString(), headers: req.headers };
      seen.push(s);
      inFlight++;
      maxInFlightSeen = Math.max(maxInFlightSeen, inFlight);
      void answer(s).then((status) => {
        inFlight--;
        res.writeHead(status).end();
      });
    });
  });
  await new Promise<void>((r) => fnServer.listen(0, '127.0.0.1', r));
  routerUrl = `http://127.0.0.1:${(fnServer.address() as AddressInfo).port}`;
}, 30_000);

afterEach(async () => {
  await Promise.all(running.splice(0).map((q) => q.stop()));
  // Each test starts from no Function: a later dispatcher would otherwise run every earlier trigger too.
  for (const f of (await store.list('Function')).items) await store.delete('Function', f.metadata.namespace, f.metadata.name);
  seen.length = 0;
  recorded.length = 0;
  maxInFlightSeen = 0;
  answer = async () => 200;
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
  await new Promise((r) => fnServer?.close(r));
  await store?.close();
  await conn?.close();
  await db?.drop();
});

describe('queue triggers on a real NATS JetStream server', () => {
  it('delivers each message to the Function, acks after a 2xx, and records it in status', { timeout: 20_000 }, async () => {
    await store.apply(fn('orders', [{ name: 'new', stream: 'ORDERS', subject: 'orders.new', contentType: 'application/json', path: '/hook' }]));
    dispatcher();
    await expect.poll(async () => (await statusOf('orders'))[0]?.reason, { timeout: 10_000 }).toBe('Consuming');
    for (let i = 0; i < 5; i++) await publish('orders.new', `{"n":${i}}`, `order-${i}`);
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(5);
    expect(seen.map((s) => s.body)).toEqual([0, 1, 2, 3, 4].map((i) => `{"n":${i}}`));
    expect(seen[0]!.path).toBe(`/${NS}/orders/hook`);
    expect(seen[0]!.headers).toMatchObject({
      'content-type': 'application/json',
      'orrery-trigger': 'queue/new',
      'orrery-delivery-id': 'ORDERS:1',
      'orrery-delivery-attempt': '1',
      'orrery-queue-subject': 'orders.new',
      'nats-msg-id': 'order-0',
    });
    await expect.poll(async () => (await statusOf('orders'))[0], { timeout: 10_000 }).toMatchObject({
      name: 'new',
      stream: 'ORDERS',
      consumer: 'orrery_shop_orders_new',
      ready: true,
      pending: 0,
      delivered: 5,
      acked: 5,
      redelivered: 0,
      deadLettered: 0,
    });
    // The stream was created with work-queue retention: acked messages are gone from it.
    const info = await (await nc.jetstreamManager()).streams.info('ORDERS');
    expect(info.config.retention).toBe('workqueue');
    expect(info.state.messages).toBe(0);
  });

  it('never has more than maxInFlight messages at the Function', { timeout: 20_000 }, async () => {
    answer = () => new Promise((r) => setTimeout(() => r(200), 300));
    await store.apply(fn('slow', [{ name: 'work', stream: 'WORK', subject: 'work.items', maxInFlight: 3 }]));
    dispatcher();
    await expect.poll(async () => (await statusOf('slow'))[0]?.reason, { timeout: 10_000 }).toBe('Consuming');
    for (let i = 0; i < 9; i++) await publish('work.items', String(i));
    await expect.poll(() => seen.length, { timeout: 15_000 }).toBe(9);
    expect(maxInFlightSeen).toBe(3);
    await expect.poll(async () => (await statusOf('slow'))[0]?.acked, { timeout: 10_000 }).toBe(9);
  });

  it('naks a failure with the backoff, delivers it again, and dead-letters it after maxDeliver with headers saying why', { timeout: 20_000 }, async () => {
    answer = async (s) => (s.body === 'poison' ? 500 : 200);
    await store.apply(fn('pay', [{ name: 'charges', stream: 'PAY', subject: 'pay.charge', maxDeliver: 3, backoff: ['200ms', '400ms'], deadLetterSubject: 'pay.dead' }]));
    const q = dispatcher();
    await expect.poll(async () => (await statusOf('pay'))[0]?.reason, { timeout: 10_000 }).toBe('Consuming');
    const jsm = await nc.jetstreamManager();
    await jsm.consumers.add('PAY', { durable_name: 'dead-reader', filter_subject: 'pay.dead', ack_policy: AckPolicy.Explicit });
    await publish('pay.charge', 'poison');
    await publish('pay.charge', 'fine');
    const dead = await (await nc.jetstream().consumers.get('PAY', 'dead-reader')).next({ expires: 10_000 });
    expect(dead?.string()).toBe('poison');
    expect(dead?.headers?.get('Orrery-Dead-Letter-Reason')).toBe('the Function answered 500 (delivery 3 of 3)');
    expect(dead?.headers?.get('Orrery-Dead-Letter-Deliveries')).toBe('3');
    expect(dead?.headers?.get('Orrery-Dead-Letter-Function')).toBe(`${NS}/pay`);
    expect(dead?.headers?.get('Orrery-Dead-Letter-Subject')).toBe('pay.charge');
    dead?.ack();
    // Three attempts of the poisoned message, the same delivery id each time.
    const poison = seen.filter((s) => s.body === 'poison');
    expect(poison.map((s) => s.headers['orrery-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(poison.map((s) => s.headers['orrery-delivery-id'])).size).toBe(1);
    // maxInFlight 1: a message in its backoff still holds the one slot, so the next waits for it (docs/triggers.md).
    await expect.poll(() => seen.filter((s) => s.body === 'fine').length, { timeout: 5000 }).toBe(1);
    expect(seen.findIndex((s) => s.body === 'fine')).toBe(3);
    await expect.poll(async () => (await statusOf('pay'))[0], { timeout: 10_000 }).toMatchObject({ delivered: 4, acked: 1, redelivered: 2, deadLettered: 1, pending: 0, lastError: 'the Function answered 500 (delivery 3 of 3)' });
    expect(recorded).toContainEqual({ name: 'pay', reason: 'QueueDeadLettered', message: expect.stringMatching(/^queue trigger charges: message PAY:1 published to pay\.dead after 3 deliveries/) });
    expect(q.backlogOf(`${NS}/pay-00001`, 'pay')).toBe(0);
  });

  it('at least once across a dispatcher restart: a delivery cut off comes back to the next one, nothing acked does', { timeout: 20_000 }, async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    answer = async (s) => {
      if (s.body === 'held' && s.headers['orrery-delivery-attempt'] === '1') await held;
      return 200;
    };
    await store.apply(fn('mail', [{ name: 'out', stream: 'MAIL', subject: 'mail.out', ackWait: '30s' }]));
    // The revision the KPA would scale (no Function reconciler runs here).
    await store.updateStatus('Function', NS, 'mail', { latestCreatedRevision: 'mail-00001' });
    const first = dispatcher();
    await expect.poll(async () => (await statusOf('mail'))[0]?.reason, { timeout: 10_000 }).toBe('Consuming');
    await publish('mail.out', 'done');
    await expect.poll(async () => (await statusOf('mail'))[0]?.acked, { timeout: 10_000 }).toBe(1);
    await publish('mail.out', 'held');
    await publish('mail.out', 'waiting');
    await expect.poll(() => seen.some((s) => s.body === 'held')).toBe(true);
    // The held message is at the Function, one more waits behind it (maxInFlight 1): the KPA sees 2.
    await expect.poll(() => first.backlogOf(`${NS}/mail-00001`, 'mail'), { timeout: 5000 }).toBe(1); // capped at maxInFlight 1
    // Stopped mid-call (leadership lost, shutdown): the call is aborted after the drain time.
    running.splice(running.indexOf(first), 1);
    await first.stop();
    release();
    // A new term: the cut-off delivery comes back at once (nak'ed on the way out), not after the 30 s ack wait.
    dispatcher();
    await expect.poll(() => seen.filter((s) => s.body === 'held').length, { timeout: 8000 }).toBe(2);
    await expect.poll(() => seen.filter((s) => s.body === 'waiting').length, { timeout: 8000 }).toBe(1);
    const held2 = seen.filter((s) => s.body === 'held');
    expect(held2[1]!.headers['orrery-delivery-id']).toBe(held2[0]!.headers['orrery-delivery-id']);
    expect(held2[1]!.headers['orrery-delivery-attempt']).toBe('2');
    expect(seen.filter((s) => s.body === 'done')).toHaveLength(1);
    // Counters continue from the status the first term wrote.
    await expect.poll(async () => (await statusOf('mail'))[0], { timeout: 10_000 }).toMatchObject({ acked: 3, redelivered: 1, pending: 0 });
  });

  it('removing a trigger stops it and deletes its consumer; the stream and its messages stay', { timeout: 20_000 }, async () => {
    await store.apply(fn('gone', [{ name: 'a', stream: 'GONE', subject: 'gone.a' }]));
    dispatcher();
    await expect.poll(async () => (await statusOf('gone'))[0]?.reason, { timeout: 10_000 }).toBe('Consuming');
    const jsm = await nc.jetstreamManager();
    expect((await jsm.consumers.info('GONE', 'orrery_shop_gone_a')).config.max_ack_pending).toBe(1);
    await store.apply(fn('gone', []));
    await expect.poll(async () => jsm.consumers.info('GONE', 'orrery_shop_gone_a').then(() => 'there', () => 'deleted'), { timeout: 10_000 }).toBe('deleted');
    await expect.poll(() => statusOf('gone'), { timeout: 10_000 }).toEqual([]);
    await publish('gone.a', 'kept');
    expect((await jsm.streams.info('GONE')).state.messages).toBe(1);
  });

  it('a trigger stopped while it starts (creating its stream, its consumer, its first pull) stops at once', { timeout: 20_000 }, async () => {
    const [settings] = queueTriggersOf(FunctionSchema.parse(fn('brief', [{ name: 'b', stream: 'BRIEF', subject: 'brief.b' }])));
    for (const afterMs of [0, 5, 20, 60, 200]) {
      const runner = new QueueTriggerRunner({
        settings: settings!,
        consumers: new JetStreamConsumers(nc),
        js: nc.jetstream(),
        invoker: new RouterTriggerInvoker({ routerUrl: () => routerUrl }),
        onEvent: () => {},
        onConsumer: () => {},
        onDeadLetter: () => {},
        log: () => {},
        pullExpiresMs: 5000,
      });
      runner.start();
      await new Promise((r) => setTimeout(r, afterMs));
      const started = Date.now();
      await runner.stop();
      expect(Date.now() - started, `stopped ${afterMs} ms after start`).toBeLessThan(1000);
    }
  });

  it('a broker that is away says BrokerUnavailable (and an Event), and the trigger consumes once it is back', { timeout: 20_000 }, async () => {
    await nats.pause();
    try {
      await store.apply(fn('outage', [{ name: 'o', stream: 'OUTAGE', subject: 'outage.x' }]));
      dispatcher();
      await expect.poll(async () => (await statusOf('outage'))[0], { timeout: 5000 }).toMatchObject({ ready: false, reason: 'BrokerUnavailable', message: expect.stringContaining(nats.url) });
      await expect.poll(() => recorded, { timeout: 5000 }).toContainEqual({ name: 'outage', reason: 'QueueConnectFailed', message: expect.stringContaining(`cannot reach the queue broker at ${nats.url}`) });
    } finally {
      await nats.resume();
    }
    await expect.poll(async () => (await statusOf('outage'))[0]?.reason, { timeout: 10_000 }).toBe('Consuming');
    // Gone again while connected: nats.js reconnects by itself, the status says so meanwhile.
    await nats.pause();
    try {
      await expect.poll(async () => (await statusOf('outage'))[0]?.reason, { timeout: 5000 }).toBe('BrokerUnavailable');
    } finally {
      await nats.resume();
    }
    await expect.poll(async () => (await statusOf('outage'))[0]?.reason, { timeout: 10_000 }).toBe('Consuming');
    await expect.poll(() => publish('outage.x', 'after').then(() => true, () => false), { timeout: 5000 }).toBe(true);
    await expect.poll(() => seen.filter((s) => s.body === 'after').length, { timeout: 10_000 }).toBe(1);
  });

  it('without a broker every queue trigger says NoBroker, with what to do', { timeout: 20_000 }, async () => {
    await store.apply(fn('idle', [{ name: 'x', stream: 'IDLE', subject: 'idle.x' }]));
    dispatcher(false);
    await expect.poll(async () => (await statusOf('idle'))[0], { timeout: 10_000 }).toMatchObject({ ready: false, reason: 'NoBroker', message: expect.stringContaining('--queue-url') });
  });
});
