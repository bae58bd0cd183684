/**
 * What the public listener keeps out of its answers — etcd's own text when a read or a write
 * failed — written to stderr instead, with the request id the client was given, so an operator
 * can match a client's report to the cause. At most `burst` lines per `windowMs` (an etcd outage
 * fails every request), then one line counting the rest.
 */
export class FailureLog {
  private windowStart = Number.NEGATIVE_INFINITY;
  private lines = 0;
  private suppressed = 0;

  constructor(
    private readonly write: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
    private readonly burst = 20,
    private readonly windowMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  failed(requestId: string, route: string, code: string, detail: string): void {
    const t = this.now();
    if (t - this.windowStart >= this.windowMs) {
      if (this.suppressed > 0) this.write(`orrery-registry: ${this.suppressed} more failed requests not logged in ${this.windowMs / 1000} s`);
      this.windowStart = t;
      this.lines = 0;
      this.suppressed = 0;
    }
    if (this.lines >= this.burst) {
      this.suppressed++;
      return;
    }
    this.lines++;
    this.write(`orrery-registry: request ${requestId} (${route}) answered ${code}: ${detail.replace(/[\r\n]+/g, ' ')}`);
  }
}
