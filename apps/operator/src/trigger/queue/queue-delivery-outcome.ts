/**
 * What becomes of one delivered message: the at-least-once rules of a queue trigger in one pure
 * place. A message is acked only after a 2xx from the Function; a failure (any other status, a
 * timeout, no answer) is nak'ed with the backoff's delay; the maxDeliver-th failure, or a
 * delivery past maxDeliver (its predecessor's outcome was lost: the operator stopped), is
 * dead-lettered. A dead letter that cannot be published is retried like a failure, never dropped.
 */
export type QueueDeliveryOutcome =
  | { action: 'ack' }
  | { action: 'nak'; delayMs: number; error: string }
  | { action: 'dead-letter'; error: string };

export interface DeliveryRules {
  maxDeliver: number;
  /** Delay after the 1st, 2nd, … failure; the last repeats. */
  backoffMs: readonly number[];
}

/** The delay after the `failures`-th failure of a message (1-based); the last step repeats. */
export function backoffAfter(backoffMs: readonly number[], failures: number): number {
  if (backoffMs.length === 0) return 0;
  return backoffMs[Math.min(Math.max(1, failures), backoffMs.length) - 1]!;
}

/**
 * Before invoking: a delivery past maxDeliver goes straight to the dead letter. It happens when
 * the maxDeliver-th attempt got no outcome (the operator stopped while it ran, or the dead letter
 * could not be published): the broker delivers again, and the Function has had its tries.
 */
export function beforeInvoke(deliveryCount: number, rules: DeliveryRules): 'invoke' | 'dead-letter' {
  return deliveryCount > rules.maxDeliver ? 'dead-letter' : 'invoke';
}

/** The Function's answer (an HTTP status) or why there is none. */
export interface InvocationAnswer {
  status?: number;
  error?: string;
}

export function afterInvoke(answer: InvocationAnswer, deliveryCount: number, rules: DeliveryRules): QueueDeliveryOutcome {
  const { status } = answer;
  if (status !== undefined && status >= 200 && status < 300) return { action: 'ack' };
  const error = status !== undefined ? `the Function answered ${status}` : (answer.error ?? 'no answer');
  if (deliveryCount >= rules.maxDeliver) return { action: 'dead-letter', error: `${error} (delivery ${deliveryCount} of ${rules.maxDeliver})` };
  return { action: 'nak', delayMs: backoffAfter(rules.backoffMs, deliveryCount), error: `${error} (delivery ${deliveryCount} of ${rules.maxDeliver})` };
}

/** A dead letter that could not be published: delivered again after the last backoff step, then dead-lettered again. */
export function deadLetterFailed(reason: string, rules: DeliveryRules): QueueDeliveryOutcome {
  return { action: 'nak', delayMs: backoffAfter(rules.backoffMs, rules.backoffMs.length), error: `dead letter not published, delivering again: ${reason}` };
}
