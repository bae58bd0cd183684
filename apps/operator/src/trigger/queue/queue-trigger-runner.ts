/**
 * One queue trigger at work: its consumer ensured on the broker, then its messages taken as they
 * come (at most maxInFlight at once), each invoking the Function through the router and settled
 * as queue-delivery-outcome.ts decides (ack after a 2xx, nak with the backoff's delay,
 * dead letter then term). While the Function works the message's ack wait is extended, so a
 * slow Function is not handed the same message twice. Stopping (leadership lost, shutdown, the
 * trigger changed) lets running invocations finish for a short while, then aborts them and naks
 * their messages at once, so the next term gets them without waiting out the ack wait.
 */
import { ConsumerEvents, type ConsumerMessages, headers as natsHeaders, type JetStreamClient, type JsMsg } from 'nats';
import type { TriggerInvoker } from '../trigger-invoker.ts';
import { deadLetterMessage } from './dead-letter-message.ts';
import { brokerCode, brokerError, type JetStreamConsumers } from './jetstream-consumers.ts';
import { afterInvoke, beforeInvoke, deadLetterFailed, type QueueDeliveryOutcome } from './queue-delivery-outcome.ts';
import { type DeliveredMessage, deliveryId, queueInvocation } from './queue-invocation.ts';
import type { QueueEvent } from './queue-trigger-counters.ts';
import type { QueueTriggerSettings } from './queue-trigger-settings.ts';

export interface QueueTriggerRunnerOptions {
  settings: QueueTriggerSettings;
  consumers: JetStreamConsumers;
  js: JetStreamClient;
  invoker: TriggerInvoker;
  /** What happened to a message or the consumer (counters, queue-trigger-counters.ts). */
  onEvent: (e: QueueEvent) => void;
  /** The consumer is ready (undefined) or failed (why): the trigger's condition. */
  onConsumer: (error: string | undefined) => void;
  /** A message was dead-lettered (or dropped without a dead-letter subject): an Event. */
  onDeadLetter: (what: string) => void;
  log: (msg: string, fields?: Record<string, unknown>) => void;
  now?: () => Date;
  /** How long one pull request waits on the broker before the next (nats.js: at least 1 s). */
  pullExpiresMs?: number;
  /** How long stop() lets running invocations finish before aborting them. */
  drainMs?: number;
}

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30_000;

export class QueueTriggerRunner {
  private stopping = false;
  private loop?: Promise<void>;
  private messages?: ConsumerMessages;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private failures = 0;
  private readonly now: () => Date;

  constructor(private readonly o: QueueTriggerRunnerOptions) {
    this.now = o.now ?? (() => new Date());
  }

  get settings(): QueueTriggerSettings {
    return this.o.settings;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // No more pulls. stop(), not close(): nats.js's close() of an iterator never iterated waits for ever.
    this.messages?.stop();
    const drained = Promise.all(this.inFlight);
    await Promise.race([drained, delay(this.o.drainMs ?? 5000)]);
    this.abort.abort();
    await drained;
    await this.loop;
  }

  /**
   * Ensures the consumer, then takes its messages (nats.js `consume`: pulls of up to maxInFlight,
   * refilled as they are settled; the broker never has more than maxInFlight unacked out, so
   * every message is handled the moment it arrives). A consumer deleted under us, or the broker
   * refusing it, starts over with a backoff.
   */
  private async run(): Promise<void> {
    const s = this.o.settings;
    while (!this.stopping) {
      let messages: ConsumerMessages;
      try {
        const consumer = await this.o.consumers.ensure(s);
        messages = await consumer.consume({ max_messages: s.maxInFlight, expires: this.o.pullExpiresMs ?? 5000 });
      } catch (err) {
        if (this.stopping) return;
        await this.failed(err);
        continue;
      }
      this.messages = messages;
      if (this.stopping) {
        messages.stop();
        return;
      }
      this.o.onConsumer(undefined);
      this.failures = 0;
      void this.watch(messages);
      try {
        for await (const m of messages) {
          const work = this.handle(m);
          this.inFlight.add(work);
          void work.finally(() => this.inFlight.delete(work));
        }
      } catch (err) {
        if (this.stopping) return;
        await this.failed(err);
      }
      this.messages = undefined;
    }
  }

  /** The consumer or stream went away under the pull: stop it, so run() ensures them again. */
  private async watch(messages: ConsumerMessages): Promise<void> {
    for await (const status of await messages.status()) {
      if (this.stopping) return;
      const gone = status.type === ConsumerEvents.ConsumerDeleted || status.type === ConsumerEvents.ConsumerNotFound || status.type === ConsumerEvents.StreamNotFound;
      if (!gone) continue;
      this.report(`${status.type.replaceAll('_', ' ')}`);
      messages.stop();
      return;
    }
  }

  private report(why: string): void {
    const error = `stream ${this.o.settings.stream}, consumer ${this.o.settings.consumer}: ${why}`;
    this.o.onConsumer(error);
    this.o.onEvent({ type: 'broker-error', error, at: this.now() });
  }

  private async failed(err: unknown): Promise<void> {
    this.report(brokerError(err));
    this.failures++;
    await sleep(Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.min(this.failures - 1, 5)), this.abort.signal);
  }

  private async handle(m: JsMsg): Promise<void> {
    if (this.stopping) {
      m.nak(0); // pulled while stopping: straight back for the next term
      return;
    }
    const s = this.o.settings;
    const message = delivered(m);
    this.o.onEvent({ type: 'delivered', deliveryCount: message.deliveryCount, at: this.now() });
    let outcome: QueueDeliveryOutcome;
    if (beforeInvoke(message.deliveryCount, s) === 'dead-letter') {
      outcome = { action: 'dead-letter', error: `delivered ${message.deliveryCount} times, more than maxDeliver ${s.maxDeliver} (an earlier attempt got no outcome)` };
    } else {
      // In-progress acks restart the broker's ack wait while the Function works.
      const progress = setInterval(() => m.working(), Math.max(1000, Math.floor(s.ackWaitMs / 3)));
      const answer = await this.o.invoker.invoke(queueInvocation(message, s, this.abort.signal)).finally(() => clearInterval(progress));
      if (this.abort.signal.aborted && answer.status === undefined) {
        m.nak(0); // stopped mid-call: not the Function's failure; the next term delivers it again
        return;
      }
      outcome = afterInvoke(answer, message.deliveryCount, s);
    }
    if (outcome.action === 'dead-letter') outcome = await this.deadLetter(m, message, outcome.error);
    this.settle(m, outcome);
  }

  private settle(m: JsMsg, outcome: QueueDeliveryOutcome): void {
    const at = this.now();
    switch (outcome.action) {
      case 'ack':
        m.ack();
        this.o.onEvent({ type: 'acked' });
        return;
      case 'nak':
        m.nak(outcome.delayMs);
        this.o.onEvent({ type: 'failed', error: outcome.error, at });
        return;
      case 'dead-letter':
        m.term();
        this.o.onEvent({ type: 'dead-lettered', error: outcome.error, at });
        return;
    }
  }

  /** Publishes the dead letter; its outcome is `dead-letter` (then term) or a nak when it could not be published. */
  private async deadLetter(m: JsMsg, message: DeliveredMessage, reason: string): Promise<QueueDeliveryOutcome> {
    const s = this.o.settings;
    const id = deliveryId(message);
    if (!s.deadLetterSubject) {
      this.o.onDeadLetter(`message ${id} dropped after ${message.deliveryCount} deliveries (no deadLetterSubject): ${reason}`);
      this.o.log('queue message dropped', { trigger: s.key, delivery: id, reason });
      return { action: 'dead-letter', error: reason };
    }
    const original: Array<[string, string]> = [];
    for (const name of m.headers?.keys() ?? []) for (const v of m.headers!.values(name)) original.push([name, v]);
    const dl = deadLetterMessage(message, original, s, reason, this.now());
    const h = natsHeaders();
    for (const [name, value] of dl.headers) h.append(name, value);
    try {
      await this.o.js.publish(s.deadLetterSubject, m.data, { headers: h, msgID: dl.msgId, timeout: 5000 });
    } catch (err) {
      // 503: no stream captures the subject. The message stays and comes back after the last backoff step.
      const why = brokerCode(err) === 503 ? `no stream captures ${s.deadLetterSubject}` : brokerError(err);
      this.o.log('queue dead letter not published', { trigger: s.key, delivery: id, error: why });
      return deadLetterFailed(why, s);
    }
    this.o.onDeadLetter(`message ${id} published to ${s.deadLetterSubject} after ${message.deliveryCount} deliveries: ${reason}`);
    this.o.log('queue message dead-lettered', { trigger: s.key, delivery: id, deadLetterSubject: s.deadLetterSubject, reason });
    return { action: 'dead-letter', error: reason };
  }
}

function delivered(m: JsMsg): DeliveredMessage {
  return {
    subject: m.subject,
    data: m.data,
    // nats.js answers "" for a header the message does not have.
    header: (name) => m.headers?.get(name) || undefined,
    stream: m.info.stream,
    streamSequence: m.info.streamSequence,
    deliveryCount: m.info.deliveryCount,
  };
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
