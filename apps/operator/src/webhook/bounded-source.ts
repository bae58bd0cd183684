import { type BucketLimits, type TokenBucket, spendToken } from '../rate-limit/token-bucket.ts';
import type { AdmissionSource } from './read-through-lookup.ts';

/**
 * The webhook port is open to the pod network (the API server's address cannot be selected), so
 * anyone there can send AdmissionReviews. Each cache miss costs a read of the API server: without
 * a bound, a flood of crafted reviews would become a flood of Function lists from the operator's
 * service account. So reads of the source are limited (a token bucket), concurrent reads of the
 * same thing share one call, and a read over the limit is skipped: that review is judged by the
 * cache alone, as before the read-through existed.
 */
/** 20 reads at once after a quiet spell, then one every 100 ms (10 per second). */
export const DEFAULT_SOURCE_READ_LIMITS: BucketLimits = { burst: 20, refillMs: 100 };

/** A read the limit skipped (the review is judged by the cache); counted, not logged one by one. */
export class SourceReadSkipped extends Error {
  constructor(what: string) {
    super(`over the admission read limit, judged by the cache: ${what}`);
  }
}

export interface BoundedSource {
  source: AdmissionSource;
  /** Reads skipped since the last call (for a periodic log line), then reset. */
  takeSkipped(): number;
}

export function boundedSource(inner: AdmissionSource, limits: BucketLimits = DEFAULT_SOURCE_READ_LIMITS, now: () => number = Date.now): BoundedSource {
  let bucket: TokenBucket | undefined;
  let skipped = 0;
  const inFlight = new Map<string, Promise<unknown>>();
  /** One call per key at a time; a new call only when a token is left. */
  const read = <T>(key: string, call: () => Promise<T>): Promise<T> => {
    const shared = inFlight.get(key);
    if (shared) return shared as Promise<T>;
    const token = spendToken(bucket, now(), limits);
    bucket = token.bucket;
    if (!token.spent) {
      skipped++;
      return Promise.reject(new SourceReadSkipped(key));
    }
    const p = call().finally(() => inFlight.delete(key));
    inFlight.set(key, p);
    return p;
  };
  const source: AdmissionSource = {};
  if (inner.environment) {
    const environment = inner.environment.bind(inner);
    source.environment = (namespace, name) => read(`Environment ${namespace}/${name}`, () => environment(namespace, name));
  }
  if (inner.functions) {
    const functions = inner.functions.bind(inner);
    source.functions = (namespace) => read(`Functions ${namespace}`, () => functions(namespace));
  }
  return {
    source,
    takeSkipped() {
      const n = skipped;
      skipped = 0;
      return n;
    },
  };
}
