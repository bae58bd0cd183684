/**
 * A token bucket as plain data: `burst` tokens at most, one more every `refillMs`. Pure: the
 * caller keeps the bucket and the clock (the Event recorder per object, the webhook's reads of
 * the API server per replica).
 */
export interface TokenBucket {
  tokens: number;
  updatedMs: number;
}

export interface BucketLimits {
  /** Tokens a full bucket holds (what may go at once after a quiet spell). */
  burst: number;
  /** One more token per this many ms. */
  refillMs: number;
}

/**
 * Refills the bucket to `nowMs` (undefined = a full one) and spends a token if one is there:
 * `spent` says whether it was, `bucket` is the bucket after it either way.
 */
export function spendToken(bucket: TokenBucket | undefined, nowMs: number, limits: BucketLimits): { spent: boolean; bucket: TokenBucket } {
  const refilled = bucket ? Math.min(limits.burst, bucket.tokens + Math.max(0, nowMs - bucket.updatedMs) / limits.refillMs) : limits.burst;
  if (refilled < 1) return { spent: false, bucket: { tokens: refilled, updatedMs: nowMs } };
  return { spent: true, bucket: { tokens: refilled - 1, updatedMs: nowMs } };
}
