/**
 * Time-weighted average concurrency (in flight + queued) over a window, the autoscaler's input
 * (Knative: the activator and queue-proxy report average concurrency, not samples).
 */
export class ConcurrencyMeter {
  level = 0;
  private area = 0;
  private last: number;
  private windowStart: number;
  requests = 0;

  constructor(nowMs: number) {
    this.last = nowMs;
    this.windowStart = nowMs;
  }

  change(delta: number, nowMs: number): void {
    this.area += this.level * (nowMs - this.last);
    this.last = nowMs;
    this.level += delta;
  }

  /** Closes the window: average concurrency and requests since the last roll. */
  roll(nowMs: number): { averageConcurrency: number; requests: number; windowMs: number } {
    this.area += this.level * (nowMs - this.last);
    this.last = nowMs;
    const windowMs = nowMs - this.windowStart;
    const averageConcurrency = windowMs > 0 ? this.area / windowMs : this.level;
    const out = { averageConcurrency, requests: this.requests, windowMs };
    this.area = 0;
    this.requests = 0;
    this.windowStart = nowMs;
    return out;
  }
}
