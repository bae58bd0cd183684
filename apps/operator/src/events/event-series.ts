/**
 * Deduplication and rate limiting of Events, as client-go's EventCorrelator does it: a repeat of
 * the same event on the same object (same type, reason and message) is counted on the Event
 * already written (count, lastTimestamp) instead of becoming a new object, and every write about
 * one object spends a token of that object's bucket (burst 25, one token per 5 minutes), so a
 * crash loop cannot flood the API server. Pure: the recorder keeps the state and the clock.
 */
import { type BucketLimits, type TokenBucket, spendToken } from '../rate-limit/token-bucket.ts';

/** One series: an event and its repeats on one object. */
export interface SeriesEntry {
  /** The Event's object name (stable per series: a repeat finds the same object). */
  name: string;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  /** Whether the Event exists where it is recorded (false: never written, or its write was dropped or failed). */
  written: boolean;
}

export type { TokenBucket };

/** `burst`: writes one object may have at once (client-go: 25); `refillMs`: one more write per this many ms (client-go: 5 minutes). */
export type SeriesLimits = BucketLimits;

export const DEFAULT_SERIES_LIMITS: SeriesLimits = { burst: 25, refillMs: 300_000 };

/** create: a new Event; bump: count the repeat on the existing one; drop: over the rate limit (counted, written later). */
export type SeriesWrite = 'create' | 'bump' | 'drop';

export interface SeriesDecision {
  write: SeriesWrite;
  /** The series after this occurrence (count includes it, also when dropped). */
  entry: SeriesEntry;
  bucket: TokenBucket;
}

/**
 * What to do with one occurrence of an event. `prev` is the series so far (undefined for the
 * first occurrence), `bucket` the object's bucket (undefined = full). A dropped occurrence still
 * counts, so the next write carries the true count.
 */
export function nextSeriesWrite(prev: SeriesEntry | undefined, bucket: TokenBucket | undefined, name: string, nowMs: number, limits: SeriesLimits = DEFAULT_SERIES_LIMITS): SeriesDecision {
  const now = new Date(nowMs).toISOString();
  const token = spendToken(bucket, nowMs, limits);
  const counted: SeriesEntry = prev
    ? { ...prev, count: prev.count + 1, lastTimestamp: now }
    : { name, count: 1, firstTimestamp: now, lastTimestamp: now, written: false };
  if (!token.spent) return { write: 'drop', entry: counted, bucket: token.bucket };
  return { write: counted.written ? 'bump' : 'create', entry: { ...counted, written: true }, bucket: token.bucket };
}
