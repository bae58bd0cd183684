/**
 * The numbering of one invocation's state calls (docs/state.md "Replayed invocations"). A
 * Function with `onWorkerLoss: replay` may run the same request twice — the router sends it to
 * another worker when the first died before answering — and both runs carry one invocation id.
 * Each get, set, cas and delete of the run takes the next position, in call order, and is sent
 * with `Idempotency-Key: <invocationId>.<position>`: statesvc records the first run's answer at
 * each position and gives it to the replay, so the replay reads what the first run read and its
 * writes land once.
 */

/** Request header asking statesvc to keep an outcome for at most this many seconds (statesvc caps it at the keyspace's retention). */
export const IDEMPOTENCY_RETENTION_HEADER = 'x-orrery-idempotency-retention';

/** An invocation id the router mints: 16–64 URL-safe characters (it sends 32 hex digits). */
const INVOCATION_ID = /^[A-Za-z0-9_-]{16,64}$/;

export function isInvocationId(value: string): boolean {
  return INVOCATION_ID.test(value);
}

export class InvocationPositions {
  private taken = 0;
  /** The header value every numbered call sends (the same for the whole invocation). */
  readonly retention: string;

  constructor(
    readonly invocationId: string,
    retentionSeconds: number,
  ) {
    if (!isInvocationId(invocationId)) throw new RangeError(`invocation id ${JSON.stringify(invocationId)} is not 16–64 of [A-Za-z0-9_-]`);
    if (!Number.isSafeInteger(retentionSeconds) || retentionSeconds < 1) throw new RangeError(`retention must be a whole number of seconds ≥ 1, not ${retentionSeconds}`);
    this.retention = String(retentionSeconds);
  }

  /** The idempotency key of the next call; take it when the call is made, before anything is awaited. */
  next(): string {
    return `${this.invocationId}.${++this.taken}`;
  }
}
