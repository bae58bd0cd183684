import { createHash } from 'node:crypto';
import { parseIdempotencyKey } from '@orrery/spec';
import { HttpError } from './http-error.ts';

/** The write an `Idempotency-Key` names, as far as its outcome depends on it. */
export interface IdempotentWrite {
  op: 'put' | 'cas' | 'delete';
  key: string;
  /** The JSON text to store (PUT: the body as stored; CAS: the body's `value`); absent for DELETE. */
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
 * Digest of what the request asks for. A retry must send the same: same route, key, value text,
 * precondition and TTL; `If-Match: 5` and `X-Orrery-State-Version: 5` are the same precondition
 * (one meaning, one digest). The value is hashed as the text statesvc stores, so a retry that
 * re-encodes a PUT body with other whitespace inside it is a different request.
 */
export function idempotencyRequestHash(w: IdempotentWrite): string {
  return createHash('sha256')
    .update(JSON.stringify([w.op, w.key, w.value ?? null, w.ifVersion ?? null, w.ttlSeconds ?? null]))
    .digest('hex');
}
