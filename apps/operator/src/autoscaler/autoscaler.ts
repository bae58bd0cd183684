import type { ActivatorMode, Revision, RouterRevisionStats } from '@orrery/spec';
import { type KpaDecision, KpaDecider } from './kpa-decider.ts';
import { KPA_DEFAULTS, type KpaDefaults, kpaSettings } from './kpa-settings.ts';
import { MetricWindow } from './metric-window.ts';
import { objectKey, splitKey } from '../queue/object-key.ts';

/** One router replica's per-revision figures for its last one-second window (router `/v1/stats`; in flight / queued optional on the wire to the autoscaler). */
export type RevisionStatsReport = Omit<RouterRevisionStats, 'inflight' | 'queued'> & Partial<Pick<RouterRevisionStats, 'inflight' | 'queued'>>;

export interface AutoscalerOptions {
  defaults?: KpaDefaults;
  /** Workers of a revision (`namespace/name`) ready now. */
  readyOf: (key: string) => number;
  /** The desired scale or mode of a revision changed: reconcile it. */
  onChange: (key: string) => void;
  /** A router reported demand for a revision (keeps specialized pool workers from being reaped). */
  onActivity?: (key: string) => void;
  /**
   * Demand waiting for a revision outside the routers, in concurrent requests (the queue triggers'
   * backlog share, trigger/queue/queue-backlog.ts); absent = none. Read at every decision.
   */
  backlogOf?: (key: string, fn: string) => number;
  /** A revision's first decision (`before` undefined) or a changed one (metrics count them). */
  onDecision?: (key: string, fn: string, before: KpaDecision | undefined, next: KpaDecision) => void;
  now?: () => number;
}

/** One tracked revision's scale as the KPA sees it (the metrics' desired/actual gauges). */
export interface TrackedScale {
  namespace: string;
  function: string;
  revision: string;
  desired: number;
  ready: number;
  mode: KpaDecision['mode'];
}

interface Tracked {
  fn: string;
  decider: KpaDecider;
  reachable: boolean;
  decision: KpaDecision;
}

/**
 * What a window keeps before its revision is tracked (stats may arrive before the first
 * reconcile): the longest stable window a revision may ask for. Tracking shortens it to the
 * revision's own stable window.
 */
const RETAIN_MS = 3_600_000;

/**
 * The KPA service: sums every router replica's stats into per-second windows, runs each tracked
 * revision's decider every tick (and at once on a poke), and tells the controller when a
 * revision's desired scale changed. The controller decides which revisions are tracked.
 */
export class Autoscaler {
  readonly defaults: KpaDefaults;
  private readonly windows = new Map<string, MetricWindow>();
  private readonly tracked = new Map<string, Tracked>();
  private timer?: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly o: AutoscalerOptions) {
    this.defaults = o.defaults ?? KPA_DEFAULTS;
    this.now = o.now ?? Date.now;
  }

  start(): void {
    this.timer = setInterval(() => this.tickAll(), this.defaults.tickMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The current decision for a routable revision; starts tracking it (initial scale) when new. */
  desired(key: string, rev: Revision, reachable: boolean): KpaDecision {
    let t = this.tracked.get(key);
    if (!t) {
      const settings = kpaSettings(rev.spec.template.autoscaling, rev.spec.template.containerConcurrency, this.defaults);
      const decider = new KpaDecider(settings, this.now());
      t = { fn: rev.spec.function, decider, reachable, decision: { desired: 0, mode: 'stable', activator: { inPath: true, excessBurstCapacity: 0, reason: '' }, reason: '' } };
      this.tracked.set(key, t);
      this.window(key).setRetention(Math.max(settings.stableWindowMs, settings.panicWindowMs));
      t.decision = this.decide(key, t);
      this.o.onDecision?.(key, t.fn, undefined, t.decision);
    }
    t.reachable = reachable;
    return t.decision;
  }

  /** The revision is gone or no longer routable. */
  forget(key: string): void {
    this.tracked.delete(key);
    this.windows.delete(key);
  }

  /** Metric windows held and the seconds they store (tests; what the autoscaler's memory grows with). */
  heldMetrics(): { windows: number; seconds: number } {
    let seconds = 0;
    for (const w of this.windows.values()) seconds += w.storedSeconds;
    return { windows: this.windows.size, seconds };
  }

  isTracked(key: string): boolean {
    return this.tracked.has(key);
  }

  /** Every tracked revision's desired and ready scale, read at scrape time. */
  scales(): TrackedScale[] {
    return [...this.tracked].map(([key, t]) => {
      const [namespace, revision] = splitKey(key);
      return { namespace, function: t.fn, revision, desired: t.decision.desired, ready: this.o.readyOf(key), mode: t.decision.mode };
    });
  }

  /** The last decision for a tracked revision (read-only: does not start tracking). */
  decisionOf(key: string): KpaDecision | undefined {
    return this.tracked.get(key)?.decision;
  }

  /**
   * Where the activator stands for each reported revision the KPA scales (the answer to a
   * router's stats push). Revisions not tracked are left out: the router keeps them in the path.
   */
  activatorModes(revisions: ReadonlyArray<Pick<RevisionStatsReport, 'namespace' | 'revision'>>): ActivatorMode[] {
    const out: ActivatorMode[] = [];
    for (const r of revisions) {
      const t = this.tracked.get(objectKey(r.namespace, r.revision));
      if (t) out.push({ namespace: r.namespace, revision: r.revision, inPath: t.decision.activator.inPath, excessBurstCapacity: t.decision.activator.excessBurstCapacity });
    }
    return out;
  }

  /** One router replica's report (`POST /v1/autoscaler/stats`). */
  recordStats(router: string, revisions: RevisionStatsReport[]): void {
    const now = this.now();
    for (const r of revisions) {
      const key = objectKey(r.namespace, r.revision);
      const t = this.tracked.get(key);
      const metric = t?.decider.settings.metric ?? 'concurrency';
      // Requests in flight or queued right now count at least as much as the last second's
      // average: a revision never looks idle while a request waits for it.
      const value = metric === 'rps' ? (r.windowMs > 0 ? (r.requests * 1000) / r.windowMs : 0) : Math.max(r.averageConcurrency, (r.inflight ?? 0) + (r.queued ?? 0));
      // A router reports every revision it ever served: an idle one nobody tracks (most often a
      // deleted revision, whose window forget() dropped) gets no window back for its zeros.
      if (!t && !(value > 0) && !(r.requests > 0) && !this.windows.has(key)) continue;
      this.window(key).record(now, router, Math.max(0, value));
      if (value > 0 || r.requests > 0) this.o.onActivity?.(key);
    }
  }

  /**
   * A request waits for a revision (`POST /v1/autoscaler/poke`): count the queue as demand now
   * and decide at once instead of at the next tick — this is what wakes a revision from zero.
   */
  poke(namespace: string, revision: string, queueLength: number, router: string, inflight = 0): void {
    const key = objectKey(namespace, revision);
    // Waiting plus in flight, as a stats push counts it: the queue alone would lower this
    // second's demand below what the router carries (it only raises, never lowers, the bucket).
    this.window(key).raise(this.now(), router, Math.max(1, queueLength + inflight));
    if (this.tracked.has(key)) this.tick(key);
    else this.o.onChange(key); // not reconciled yet (e.g. right after a restart): do so now
  }

  tickAll(): void {
    for (const key of this.tracked.keys()) this.tick(key);
  }

  private tick(key: string): void {
    const t = this.tracked.get(key);
    if (!t) return;
    const before = t.decision;
    const next = this.decide(key, t);
    if (next.desired !== before.desired || next.mode !== before.mode) {
      t.decision = next;
      this.o.onDecision?.(key, t.fn, before, next);
      this.o.onChange(key);
    } else if (next.activator.inPath !== before.activator.inPath || next.activator.excessBurstCapacity !== before.activator.excessBurstCapacity) {
      // The routers read the activator's place every push: no reconcile for it, and the status
      // line keeps the decision that last changed the scale.
      t.decision = { ...before, activator: next.activator };
    }
  }

  private decide(key: string, t: Tracked): KpaDecision {
    const s = t.decider.settings;
    const now = this.now();
    const w = this.window(key);
    return t.decider.decide({
      nowMs: now,
      stable: w.average(now, s.stableWindowMs),
      panic: w.average(now, s.panicWindowMs),
      ready: this.o.readyOf(key),
      reachable: t.reachable,
      backlog: this.o.backlogOf?.(key, t.fn) ?? 0,
    });
  }

  private window(key: string): MetricWindow {
    let w = this.windows.get(key);
    if (!w) this.windows.set(key, (w = new MetricWindow(RETAIN_MS)));
    return w;
  }
}
