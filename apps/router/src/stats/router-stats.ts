/**
 * Plain counters the request path bumps (no label hashing per request); /metrics and
 * /v1/stats read them. Per revision: in flight, queued, time-weighted concurrency, requests.
 * Per function: requests, sticky requests, missing keys, sticky hits, teleports. Per router:
 * admit outcomes and the router's own time per request.
 */
import type { RouterFunctionStats, RouterRevisionStats } from '@orrery/spec';
import { ConcurrencyMeter } from './concurrency-meter.ts';
import { FastHistogram } from './fast-histogram.ts';
// The module's binding: Node 20's globalThis.performance is an accessor, a getter call on every use.
import { performance } from 'node:perf_hooks';

export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
export const OVERHEAD_BUCKETS = [0.00002, 0.00005, 0.0001, 0.00015, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01];

export class RevisionStats {
  inflight = 0;
  queued = 0;
  requestsTotal = 0;
  readonly meter: ConcurrencyMeter;
  /** Last closed one-second window. */
  lastWindow = { averageConcurrency: 0, requests: 0, windowMs: 0 };
  /** Responses by status code. */
  readonly codes = new Map<number, number>();

  constructor(
    readonly namespace: string,
    readonly functionName: string,
    readonly revision: string,
    nowMs: number,
  ) {
    this.meter = new ConcurrencyMeter(nowMs);
  }

  countCode(code: number): void {
    this.codes.set(code, (this.codes.get(code) ?? 0) + 1);
  }
}

export class FunctionStats {
  requests = 0;
  stickyRequests = 0;
  stickyKeyMissing = 0;
  stickyHits = 0;
  teleports = 0;
  /** Request duration (seconds), exported as orrery_router_request_duration_seconds. */
  readonly duration = new FastHistogram(DURATION_BUCKETS);

  constructor(
    readonly namespace: string,
    readonly name: string,
  ) {}

  get stickyHitRatio(): number {
    return this.stickyRequests > 0 ? this.stickyHits / this.stickyRequests : 0;
  }
}

/** The wire shapes live in @orrery/spec (router-stats.ts), shared with their readers; this router always sends the hit ratio. */
export interface StatsView {
  at: string;
  revisions: RouterRevisionStats[];
  functions: Array<Required<RouterFunctionStats>>;
  admitResults: Record<string, number>;
}

export class RouterStats {
  readonly revisions = new Map<string, RevisionStats>();
  readonly functions = new Map<string, FunctionStats>();
  readonly admitResults: Record<string, number> = { admitted: 0, no_entry: 0, all_busy: 0, all_quarantined: 0 };
  /** Arrival to upstream dispatch plus upstream headers to client headers (seconds), exported as orrery_router_overhead_seconds. */
  readonly overhead = new FastHistogram(OVERHEAD_BUCKETS);

  constructor(private readonly now: () => number = () => performance.now()) {}

  revision(key: string, namespace: string, fn: string, revision: string): RevisionStats {
    let s = this.revisions.get(key);
    if (!s) this.revisions.set(key, (s = new RevisionStats(namespace, fn, revision, this.now())));
    return s;
  }

  fn(key: string, namespace: string, name: string): FunctionStats {
    let s = this.functions.get(key);
    if (!s) this.functions.set(key, (s = new FunctionStats(namespace, name)));
    return s;
  }

  /**
   * Drops the stats of revisions that left the route table (collected, deleted) once nothing of
   * theirs is in flight, queued or in the window just closed. Without this a router reports
   * every revision it ever served, every second, for the rest of its life — under steady
   * rollouts a report (and the autoscaler's work on it) that only grows. Their response-code
   * series leave /metrics with them, as a deleted object's series do.
   */
  forgetRetired(routed: (key: string) => boolean): number {
    let dropped = 0;
    for (const [key, s] of this.revisions) {
      if (routed(key) || s.inflight > 0 || s.queued > 0 || s.lastWindow.requests > 0) continue;
      this.revisions.delete(key);
      dropped++;
    }
    return dropped;
  }

  /** Closes every revision's window (called once a second). */
  roll(): void {
    const t = this.now();
    for (const s of this.revisions.values()) s.lastWindow = s.meter.roll(t);
  }

  view(): StatsView {
    return {
      at: new Date().toISOString(),
      revisions: [...this.revisions.values()].map((s) => ({
        namespace: s.namespace,
        function: s.functionName,
        revision: s.revision,
        averageConcurrency: s.lastWindow.averageConcurrency,
        requests: s.lastWindow.requests,
        windowMs: s.lastWindow.windowMs,
        inflight: s.inflight,
        queued: s.queued,
      })),
      functions: [...this.functions.values()].map((f) => ({
        namespace: f.namespace,
        function: f.name,
        requests: f.requests,
        stickyRequests: f.stickyRequests,
        stickyKeyMissing: f.stickyKeyMissing,
        stickyHits: f.stickyHits,
        teleports: f.teleports,
        stickyHitRatio: f.stickyHitRatio,
      })),
      admitResults: { ...this.admitResults },
    };
  }
}
