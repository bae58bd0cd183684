/**
 * One revision's metric as one-second buckets, each bucket holding the latest value per source
 * (router replica): the autoscaler sums replicas, and a replica that reports twice within a
 * second replaces its own value instead of counting twice.
 *
 * Only non-zero values are stored: a missing second already counts as zero, and every router
 * reports every revision it has served every second, busy or not — stored, those zeros were a
 * map per revision per second for the whole retention (the local operator grew ~4 MB a minute
 * under churn; docs/performance.md "soak").
 */
export class MetricWindow {
  private readonly buckets = new Map<number, Map<string, number>>();
  private firstBucket?: number;

  constructor(private retainMs: number) {}

  /** Keep only what the longest window read from this metric needs (the revision's stable window). */
  setRetention(ms: number): void {
    this.retainMs = ms;
  }

  /** Seconds held (for tests and memory checks). */
  get storedSeconds(): number {
    return this.buckets.size;
  }

  record(nowMs: number, source: string, value: number): void {
    const b = Math.floor(nowMs / 1000);
    this.firstBucket ??= b;
    let m = this.buckets.get(b);
    if (value === 0) {
      // Replaces an earlier value of this second as a stored zero would.
      if (m?.delete(source) && m.size === 0) this.buckets.delete(b);
    } else {
      if (!m) this.buckets.set(b, (m = new Map()));
      m.set(source, value);
    }
    this.prune(b);
  }

  /** Raise (never lower) a source's value in the current bucket: pokes carry the queue length. */
  raise(nowMs: number, source: string, value: number): void {
    const b = Math.floor(nowMs / 1000);
    const prev = this.buckets.get(b)?.get(source) ?? 0;
    if (value > prev) this.record(nowMs, source, value);
  }

  /**
   * Average of the per-second sums over the last `windowMs`; missing seconds count as zero.
   * Before a full window of data exists, the divisor is the seconds seen so far (Knative does
   * the same so a fresh revision reacts at once). No data at all → 0.
   */
  average(nowMs: number, windowMs: number): number {
    if (this.firstBucket === undefined) return 0;
    const last = Math.floor(nowMs / 1000);
    const size = Math.max(1, Math.round(windowMs / 1000));
    const first = Math.max(last - size + 1, this.firstBucket);
    if (first > last) return 0;
    let sum = 0;
    for (let b = first; b <= last; b++) {
      const m = this.buckets.get(b);
      if (m) for (const v of m.values()) sum += v;
    }
    return sum / (last - first + 1);
  }

  private prune(current: number): void {
    const oldest = current - Math.ceil(this.retainMs / 1000) - 1;
    for (const b of this.buckets.keys()) if (b < oldest) this.buckets.delete(b);
  }
}
