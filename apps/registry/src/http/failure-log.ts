import { createLogger } from '@orrery/log';

/**
 * What the public listener keeps out of its answers — etcd's own text when a read or a write
 * failed — written to the log instead, with the request id the client was given (`reqId`), so an
 * operator can match a client's report to the cause. At most `burst` records per `windowMs` (an
 * etcd outage fails every request), then one record counting the rest.
 */
export type FailureSink = (message: string, fields: { reqId?: string; route?: string; code?: string }) => void;

function defaultSink(): FailureSink {
  const log = createLogger({ component: 'registry' });
  return (message, fields) => log.error(message, fields);
}

export class FailureLog {
  private windowStart = Number.NEGATIVE_INFINITY;
  private lines = 0;
  private suppressed = 0;

  constructor(
    private readonly write: FailureSink = defaultSink(),
    private readonly burst = 20,
    private readonly windowMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  failed(requestId: string, route: string, code: string, detail: string): void {
    const t = this.now();
    if (t - this.windowStart >= this.windowMs) {
      if (this.suppressed > 0) this.write(`${this.suppressed} more failed requests not logged in ${this.windowMs / 1000} s`, {});
      this.windowStart = t;
      this.lines = 0;
      this.suppressed = 0;
    }
    if (this.lines >= this.burst) {
      this.suppressed++;
      return;
    }
    this.lines++;
    this.write(`request ${requestId} (${route}) answered ${code}: ${detail.replace(/[\r\n]+/g, ' ')}`, { reqId: requestId, route, code });
  }
}
