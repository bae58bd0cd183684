/**
 * Time-weighted average concurrency and request count per fixed window (1 s by default),
 * the numbers Knative's queue-proxy reports to the autoscaler. Windows are aligned to
 * multiples of the window length on the clock, so two meters on one clock agree.
 * The clock is injected so the arithmetic can be tested without sleeping.
 */

export interface WindowStats {
  /** Start of the window (clock ms). */
  start: number;
  end: number;
  /** ∫ concurrency dt / window length. */
  averageConcurrency: number;
  /** Requests that arrived during the window. */
  requestCount: number;
}

export class ConcurrencyMeter {
  private level = 0;
  private windowStart: number;
  private lastChange: number;
  private area = 0;
  private count = 0;
  private completed: WindowStats;
  private total = 0;

  constructor(
    private readonly now: () => number = Date.now,
    readonly windowMs = 1000,
  ) {
    const t = now();
    this.windowStart = Math.floor(t / windowMs) * windowMs;
    this.lastChange = t;
    this.completed = { start: this.windowStart - windowMs, end: this.windowStart, averageConcurrency: 0, requestCount: 0 };
  }

  /** A request arrived: counts it and raises concurrency by one. */
  arrive(): void {
    this.advance();
    this.count++;
    this.total++;
    this.level++;
  }

  /** A request left (answered, refused or cancelled). */
  depart(): void {
    this.advance();
    if (this.level > 0) this.level--;
  }

  get current(): number {
    return this.level;
  }

  get totalRequests(): number {
    return this.total;
  }

  /** The most recent complete window. */
  lastWindow(): WindowStats {
    this.advance();
    return { ...this.completed };
  }

  private advance(): void {
    const t = this.now();
    const end = this.windowStart + this.windowMs;
    if (t < end) {
      this.area += this.level * (t - this.lastChange);
      this.lastChange = t;
      return;
    }
    // Close the open window; if whole windows passed with no event, the level held all along.
    this.area += this.level * (end - this.lastChange);
    const missed = Math.floor((t - end) / this.windowMs);
    this.completed =
      missed === 0
        ? { start: this.windowStart, end, averageConcurrency: this.area / this.windowMs, requestCount: this.count }
        : { start: end + (missed - 1) * this.windowMs, end: end + missed * this.windowMs, averageConcurrency: this.level, requestCount: 0 };
    this.windowStart = end + missed * this.windowMs;
    this.area = this.level * (t - this.windowStart);
    this.lastChange = t;
    this.count = 0;
  }
}
