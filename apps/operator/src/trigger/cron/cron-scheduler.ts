/**
 * Runs the cron triggers of every Function (docs/triggers.md "Cron"). Only one operator runs it:
 * the local operator, or on Kubernetes the Lease holder for the length of its term
 * (backends/kubernetes/wiring/kube-elected.ts). Even two at once could not run a tick twice:
 *
 * 1. each pass (every second) looks at a mirror of the Functions and, for a trigger whose
 *    nextScheduleTime has come (or whose record does not match its spec), reads the Function
 *    fresh and plans (plan-cron-tick.ts);
 * 2. the plan's record is written with the resourceVersion just read (trigger-status-store.ts):
 *    for a due tick that write is the claim (lastScheduleTime = the tick, a Running run), and
 *    only the writer that wins it calls the Function; a loser reads again and finds the tick
 *    already claimed;
 * 3. the call goes through the router (trigger-invoker.ts) with Orrery-Trigger and
 *    Orrery-Scheduled-Time; its outcome completes the run in the record, and an Event says it.
 *
 * A new leader reads the same record, so it neither repeats a claimed tick nor skips the one
 * that came during the failover. A tick claimed by an operator that died before calling is lost
 * (at most once, never twice); its run is marked Failed once the call's timeout has passed.
 */
import { type CronTrigger, type CronTriggerStatus, FunctionSchema, GROUP_VERSION, type OrreryFunction } from '@orrery/spec';
import { mirrorStore, type ResourceStore, type StoreMirror } from '@orrery/store';
import { type EventRecorder, eventTarget } from '../../events/event-recorder.ts';
import { type TriggerInvoker, invocationSucceeded } from '../trigger-invoker.ts';
import { type TriggerStatusStore, updateTriggerStatus } from '../trigger-status-store.ts';
import { callEvent, planEvents } from './cron-events.ts';
import { recordAfterCall, recordAfterPlan, recordedRunning, recordWithoutAbandoned, rfc3339, withEntry } from './cron-record.ts';
import { type CronPlan, planCronTick } from './plan-cron-tick.ts';

/** The tick a call belongs to (RFC 3339), sent with Orrery-Trigger. Informational, like it: anyone can send both. */
export const SCHEDULED_TIME_HEADER = 'Orrery-Scheduled-Time';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface CronSchedulerOptions {
  /** Where Functions are listed and watched (the mirror each pass reads). */
  store: ResourceStore;
  /** Fresh reads and conditional writes of status.triggers.cron. */
  status: TriggerStatusStore;
  invoker: TriggerInvoker;
  events?: EventRecorder;
  now?: () => Date;
  /** Between passes (default 1 s); 0 = passes only when `pass()` is called (tests). */
  intervalMs?: number;
  log?: Log;
}

/**
 * How long a call may take: the router may hold it in the activator queue for the Function's
 * timeout before the Function runs for as long again. Also how long a Running run of another
 * operator counts as in flight.
 */
export function callTimeoutMs(fn: OrreryFunction): number {
  return 2 * fn.spec.template.timeoutSeconds * 1000 + 10_000;
}

const zone = (tz: string | undefined) => tz || 'UTC';

export class CronScheduler {
  private mirror?: StoreMirror;
  /** Parsed Functions of the mirror by key, kept while their resourceVersion is unchanged. */
  private functions = new Map<string, OrreryFunction>();
  private timer?: NodeJS.Timeout;
  private passing?: Promise<void>;
  /** `namespace/function/trigger` → scheduled times whose call this scheduler has in flight. */
  private readonly inFlight = new Map<string, Set<string>>();
  private readonly calls = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private stopped = false;
  private readonly now: () => Date;
  private readonly log: Log;

  constructor(private readonly o: CronSchedulerOptions) {
    this.now = o.now ?? (() => new Date());
    this.log = o.log ?? (() => {});
  }

  /** Starts the mirror and the passes. `ready` resolves once the Functions were listed. */
  start(): { ready: Promise<void> } {
    this.mirror = mirrorStore({
      store: this.o.store,
      kinds: ['Function'],
      onChange: (objects) => this.remember(objects.get('Function') ?? new Map()),
      onError: (err) => this.log(`cron triggers: watching Functions: ${(err as Error).message}`),
    });
    const interval = this.o.intervalMs ?? 1000;
    if (interval > 0) {
      this.timer = setInterval(() => void this.pass(), interval);
      this.timer.unref();
    }
    return { ready: this.mirror.ready };
  }

  /**
   * Stops deciding at once; calls in flight get `graceMs` to finish (their outcome is recorded),
   * then are aborted (recorded as failed: the operator stopped).
   */
  async stop(graceMs = 5000): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.mirror?.stop();
    await this.passing?.catch(() => {});
    const settled = (ms: number) => Promise.race([Promise.allSettled([...this.calls]), new Promise((r) => setTimeout(r, ms).unref())]);
    await settled(graceMs);
    this.abort.abort();
    await settled(5000);
  }

  /** Calls in flight (tests wait for them). */
  async idle(): Promise<void> {
    while (this.calls.size) await Promise.allSettled([...this.calls]);
  }

  /** One pass over the mirror; a pass still running is joined, not doubled. */
  pass(): Promise<void> {
    this.passing ??= this.runPass().finally(() => (this.passing = undefined));
    return this.passing;
  }

  private remember(objects: ReadonlyMap<string, unknown>): void {
    const next = new Map<string, OrreryFunction>();
    for (const [key, raw] of objects) {
      const rv = (raw as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
      const known = this.functions.get(key);
      if (known && known.metadata.resourceVersion === rv) {
        next.set(key, known);
        continue;
      }
      const r = FunctionSchema.safeParse(raw);
      if (r.success) next.set(key, r.data);
    }
    this.functions = next;
  }

  private async runPass(): Promise<void> {
    const now = this.now();
    for (const fn of this.functions.values()) {
      if (this.stopped) return;
      const cron = fn.spec.triggers?.cron ?? [];
      const stored = fn.status?.triggers?.cron ?? [];
      const { namespace, name } = fn.metadata;
      try {
        for (const t of cron) {
          if (!this.quiet(fn, t, stored.find((e) => e.name === t.name), now)) await this.decide(namespace, name, t.name);
        }
        // Entries of triggers the spec no longer has are dropped.
        if (stored.some((e) => !cron.some((t) => t.name === e.name))) await this.decide(namespace, name, undefined);
      } catch (err) {
        this.log(`cron triggers of ${namespace}/${name}: ${(err as Error).message}`, { namespace, function: name });
      }
    }
  }

  /**
   * Nothing to do by the mirror's copy, decided without schedule arithmetic: the record follows
   * the spec and its next tick has not come. Anything else is decided on a fresh read.
   */
  private quiet(fn: OrreryFunction, t: CronTrigger, record: CronTriggerStatus | undefined, now: Date): boolean {
    if (!record || record.schedule !== t.schedule || zone(record.timeZone) !== zone(t.timeZone)) return false;
    if (record.problem) return true; // reported; a changed schedule is seen above
    if (!record.since || Boolean(record.suspended) !== t.suspend) return false;
    if (t.suspend) return true;
    const key = this.keyOf(fn, t.name);
    const timeoutMs = callTimeoutMs(fn);
    const abandoned = (record.runs ?? []).some(
      (r) => r.outcome === 'Running' && !this.inFlight.get(key)?.has(r.scheduledTime) && (!r.startTime || now.getTime() - Date.parse(r.startTime) > timeoutMs),
    );
    if (abandoned) return false;
    return record.nextScheduleTime !== undefined && now.getTime() < Date.parse(record.nextScheduleTime);
  }

  private keyOf(fn: OrreryFunction, trigger: string): string {
    return `${fn.metadata.namespace}/${fn.metadata.name}/${trigger}`;
  }

  /** Plans one trigger on a fresh read and writes the plan's record; a won claim starts the call. */
  private async decide(namespace: string, name: string, triggerName: string | undefined): Promise<void> {
    for (let attempt = 1; attempt <= 5 && !this.stopped; attempt++) {
      const fn = await this.o.status.read(namespace, name);
      if (!fn) return;
      const cron = fn.spec.triggers?.cron ?? [];
      const entries = fn.status?.triggers?.cron ?? [];
      const t = cron.find((x) => x.name === triggerName);
      const now = this.now();
      let entry: CronTriggerStatus | undefined;
      let plan: CronPlan | undefined;
      if (t) {
        const key = this.keyOf(fn, t.name);
        const timeoutMs = callTimeoutMs(fn);
        const record = entries.find((e) => e.name === t.name);
        const active = (this.inFlight.get(key)?.size ?? 0) > 0 || recordedRunning(record, now, timeoutMs);
        plan = planCronTick({ now, trigger: t, record, active });
        entry = recordAfterPlan(record, t, plan, now);
        const base = entry ?? record;
        const repaired = base && recordWithoutAbandoned(base, now, timeoutMs, (at) => this.inFlight.get(key)?.has(at) ?? false);
        if (repaired) entry = repaired;
      }
      const list = withEntry(entries, entry, cron.map((x) => x.name));
      if (!entry && list.length === entries.length) return;
      const outcome = await this.o.status.write(fn, 'cron', list);
      if (outcome === 'gone') return;
      if (outcome === 'conflict') continue;
      if (t && plan) {
        this.o.events?.record(eventTarget(GROUP_VERSION, 'Function', fn), ...planEvents(t, plan));
        if (plan.action === 'run') this.launch(fn, t, plan.tick);
      }
      return;
    }
  }

  /** The call of a claimed tick; its outcome completes the tick's run in the record. */
  private launch(fn: OrreryFunction, t: CronTrigger, tick: Date): void {
    const { namespace, name } = fn.metadata;
    const key = this.keyOf(fn, t.name);
    const scheduledTime = rfc3339(tick);
    const mine = this.inFlight.get(key) ?? new Set<string>();
    mine.add(scheduledTime);
    this.inFlight.set(key, mine);
    const headers = { ...Object.fromEntries((t.headers ?? []).map((h) => [h.name, h.value])), [SCHEDULED_TIME_HEADER]: scheduledTime };
    const call = this.o.invoker
      .invoke({ namespace, function: name, trigger: `cron/${t.name}`, method: t.method, path: t.path, headers, body: t.body, timeoutMs: callTimeoutMs(fn), signal: this.abort.signal })
      .then(async (result) => {
        this.o.events?.record(eventTarget(GROUP_VERSION, 'Function', fn), callEvent(t, result));
        const level = invocationSucceeded(result) ? 'called' : 'call failed';
        this.log(`cron trigger ${namespace}/${name}/${t.name} ${level}`, { namespace, function: name, trigger: t.name, scheduledTime, status: result.status, error: result.error });
        await updateTriggerStatus(this.o.status, namespace, name, 'cron', (entries) => {
          const i = entries.findIndex((e) => e.name === t.name);
          if (i < 0) return undefined; // the trigger is gone
          entries[i] = recordAfterCall(entries[i]!, tick, result);
          return entries;
        });
      })
      .catch((err: unknown) => this.log(`cron trigger ${namespace}/${name}/${t.name}: recording the outcome of ${scheduledTime} failed: ${(err as Error).message}`))
      .finally(() => {
        mine.delete(scheduledTime);
        if (mine.size === 0 && this.inFlight.get(key) === mine) this.inFlight.delete(key);
        this.calls.delete(call);
      });
    this.calls.add(call);
  }
}
