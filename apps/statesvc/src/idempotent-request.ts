import { createHash } from 'node:crypto';
import { parseIdempotencyKey, parseIdempotencyRetention } from '@orrery/spec';
import { HttpError } from './http-error.ts';

/**
 * The request an `Idempotency-Key` names, as far as its outcome depends on it: a write, or a
 * read whose answer is recorded (docs/state.md "Recorded reads").
 */
export interface IdempotentCall {
  op: 'put' | 'cas' | 'delete' | 'get';
  key: string;
  /** The JSON text to store (PUT: the body as stored; CAS: the body's `value`); absent for DELETE and GET. */
  value?: string;
  /** The effective precondition: `If-Match`, `X-Orrery-State-Version` and `expectVersion` agree by then. */
  ifVersion?: number;
  /** `X-Orrery-State-TTL` as sent (not the keyspace default, which a reload may change between retries). */
  ttlSeconds?: number;
}

/** The request's `Idempotency-Key`, or undefined; a bad one is 400 `idempotency_key_invalid`. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  const { key, problem } = parseIdempotencyKey(header);
  if (problem !== undefined) throw new HttpError('idempotency_key_invalid', problem);
  return key;
}

/**
 * `X-Orrery-Idempotency-Retention` in ms, or undefined when absent; a bad one is 400
 * `idempotency_retention_invalid`. Not part of the digest: it says how long to keep the answer,
 * not what the request asks, so a retry that sends another value still gets the stored outcome.
 */
export function idempotencyRetentionOf(header: string | string[] | undefined): number | undefined {
  const { seconds, problem } = parseIdempotencyRetention(header);
  if (problem !== undefined) throw new HttpError('idempotency_retention_invalid', problem);
  return seconds === undefined ? undefined : seconds * 1000;
}

/**
 * Digest of what the request asks for. A retry must send the same: same route, key, value text,
 * precondition and TTL; `If-Match: 5` and `X-Orrery-State-Version: 5` are the same precondition
 * (one meaning, one digest). The value is hashed as the text statesvc stores, so a retry that
 * re-encodes a PUT body with other whitespace inside it is a different request. A read is
 * `['get', key]`: the same idempotency key on a write and a read never matches.
 */
export function idempotencyRequestHash(w: IdempotentCall): string {
  return createHash('sha256')
    .update(JSON.stringify([w.op, w.key, w.value ?? null, w.ifVersion ?? null, w.ttlSeconds ?? null]))
    .digest('hex');
}
