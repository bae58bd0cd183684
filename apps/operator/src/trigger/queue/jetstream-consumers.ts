/**
 * The broker side of a queue trigger (nats.js JetStream management): the stream, created when
 * missing and otherwise left as the user made it; the durable pull consumer, created or updated to
 * the trigger's settings (queue-trigger-settings.ts); its depth; its deletion. Thin: every rule
 * about what to create lives in the settings, errors carry the broker's own words.
 */
import { AckPolicy, type Consumer, DeliverPolicy, type JetStreamManager, type NatsConnection, RetentionPolicy, StorageType } from 'nats';
import { queueConsumerConfig, type QueueTriggerSettings } from './queue-trigger-settings.ts';

/** The broker's error code, when it answered one (404 = no such stream or consumer). */
export function brokerCode(err: unknown): number | undefined {
  const e = err as { code?: unknown; api_error?: { code?: unknown } };
  const code = Number(e?.api_error?.code ?? e?.code);
  return Number.isFinite(code) ? code : undefined;
}

/** One line for status and Events: the broker's description when it gave one. */
export function brokerError(err: unknown): string {
  const e = err as { message?: string; api_error?: { description?: string } };
  return String(e?.api_error?.description ?? e?.message ?? err).replace(/\s+/g, ' ').slice(0, 300);
}

export class JetStreamConsumers {
  private jsmP?: Promise<JetStreamManager>;

  constructor(private readonly nc: NatsConnection) {}

  private jsm(): Promise<JetStreamManager> {
    this.jsmP ??= this.nc.jetstreamManager().catch((err: unknown) => {
      this.jsmP = undefined;
      throw err;
    });
    return this.jsmP;
  }

  /**
   * The trigger's stream and consumer as its settings say, then the consumer to read from.
   * A missing stream is created with work-queue retention (a message is deleted once acked or
   * dead-lettered) capturing the subject and the dead-letter subject; an existing one is never
   * changed, and must capture the subject (the broker refuses the consumer otherwise).
   */
  async ensure(s: QueueTriggerSettings): Promise<Consumer> {
    const jsm = await this.jsm();
    await this.ensureStream(jsm, s);
    const want = queueConsumerConfig(s);
    const config = { ...want, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All };
    let have;
    try {
      have = await jsm.consumers.info(s.stream, s.consumer);
    } catch (err) {
      if (brokerCode(err) !== 404) throw err;
    }
    if (!have) await jsm.consumers.add(s.stream, config);
    else if (
      have.config.filter_subject !== want.filter_subject ||
      have.config.ack_wait !== want.ack_wait ||
      have.config.max_ack_pending !== want.max_ack_pending ||
      have.config.max_deliver !== want.max_deliver ||
      have.config.ack_policy !== AckPolicy.Explicit
    ) {
      try {
        await jsm.consumers.update(s.stream, s.consumer, { filter_subject: want.filter_subject, ack_wait: want.ack_wait, max_ack_pending: want.max_ack_pending, max_deliver: want.max_deliver, description: want.description });
      } catch {
        // A change the broker cannot make in place: a new consumer. On a work-queue stream every
        // unacked message is still there for it; on a limits stream it starts from the first.
        await jsm.consumers.delete(s.stream, s.consumer);
        await jsm.consumers.add(s.stream, config);
      }
    }
    return this.nc.jetstream().consumers.get(s.stream, s.consumer);
  }

  private async ensureStream(jsm: JetStreamManager, s: QueueTriggerSettings): Promise<void> {
    try {
      await jsm.streams.info(s.stream);
      return;
    } catch (err) {
      if (brokerCode(err) !== 404) throw err;
    }
    const subjects = [s.subject, ...(s.deadLetterSubject ? [s.deadLetterSubject] : [])];
    try {
      await jsm.streams.add({ name: s.stream, subjects, retention: RetentionPolicy.Workqueue, storage: StorageType.File, description: 'created by Orrery for queue triggers' });
    } catch (err) {
      // Another trigger created it meanwhile: fine. Anything else (e.g. a subject another stream captures) is the answer.
      try {
        await jsm.streams.info(s.stream);
      } catch {
        throw err;
      }
    }
  }

  /** Messages waiting for the trigger: not yet delivered plus delivered and not yet acked (naks in backoff included). */
  async depth(s: Pick<QueueTriggerSettings, 'stream' | 'consumer'>): Promise<number> {
    const info = await (await this.jsm()).consumers.info(s.stream, s.consumer);
    return info.num_pending + info.num_ack_pending;
  }

  /** Deletes the trigger's consumer; gone already is fine. The stream and its messages stay. */
  async remove(s: Pick<QueueTriggerSettings, 'stream' | 'consumer'>): Promise<void> {
    try {
      await (await this.jsm()).consumers.delete(s.stream, s.consumer);
    } catch (err) {
      if (brokerCode(err) !== 404) throw err;
    }
  }
}
