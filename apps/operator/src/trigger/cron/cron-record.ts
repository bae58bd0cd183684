/**
 * The record a cron trigger keeps in status.triggers.cron[] (docs/triggers.md "Cron"), changed
 * by plain functions: what a plan writes before anything runs (the claim), what a finished call
 * adds, and the repair of runs whose caller went away. Pure; the scheduler writes the results
 * with a conditional status write (trigger/trigger-status-store.ts).
 */
import { CRON_HISTORY_LIMIT, type CronRun, type CronTrigger, type CronTriggerStatus } from '@orrery/spec';
import type { TriggerResult } from '../trigger-invoker.ts';
import { invocationSucceeded } from '../trigger-invoker.ts';
import type { CronPlan } from './plan-cron-tick.ts';

/** RFC 3339 as Kubernetes writes it: whole seconds without ".000". */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

const keep = (runs: CronRun[]) => runs.slice(-CRON_HISTORY_LIMIT);
const later = (a: string | undefined, b: string) => (a && Date.parse(a) >= Date.parse(b) ? a : b);

/**
 * The record after a plan, or undefined when the plan writes nothing (`wait` with an up-to-date
 * record). A `run` adds a Running run: written before the call, it is the claim of the tick.
 */
export function recordAfterPlan(record: CronTriggerStatus | undefined, trigger: CronTrigger, plan: CronPlan, now: Date): CronTriggerStatus | undefined {
  const base: CronTriggerStatus = { ...(record ?? {}), name: trigger.name };
  const next = 'next' in plan && plan.next ? rfc3339(plan.next) : undefined;
  switch (plan.action) {
    case 'broken':
      if (record && record.problem === plan.problem && record.schedule === trigger.schedule) return undefined;
      return withoutUndefined({ name: trigger.name, schedule: trigger.schedule, timeZone: trigger.timeZone, problem: plan.problem, runs: record?.runs });
    case 'observe':
      return withoutUndefined({
        ...base,
        schedule: trigger.schedule,
        timeZone: trigger.timeZone,
        suspended: trigger.suspend,
        since: rfc3339(plan.since),
        nextScheduleTime: next,
        missedTicks: 0,
        problem: undefined,
      });
    case 'wait':
      if (record && record.nextScheduleTime === next && record.problem === undefined) return undefined;
      return withoutUndefined({ ...base, nextScheduleTime: next, problem: undefined });
    case 'run':
    case 'skip':
    case 'miss': {
      const tick = rfc3339(plan.tick);
      const run: CronRun =
        plan.action === 'run'
          ? { scheduledTime: tick, outcome: 'Running', startTime: rfc3339(now) }
          : plan.action === 'skip'
            ? { scheduledTime: tick, outcome: 'Skipped', message: 'the previous call was still running (concurrencyPolicy Forbid)' }
            : { scheduledTime: tick, outcome: 'Missed', message: `found ${Math.round(plan.lateMs / 1000)} s late, past startingDeadlineSeconds ${trigger.startingDeadlineSeconds}` };
      return withoutUndefined({
        ...base,
        lastScheduleTime: tick,
        nextScheduleTime: next,
        missedTicks: (record?.missedTicks ?? 0) + plan.missed + (plan.action === 'run' ? 0 : plan.action === 'skip' ? 1 : 0),
        problem: undefined,
        runs: keep([...(record?.runs ?? []), run]),
      });
    }
  }
}

/** The record once the call of `tick` came back: its run completed, lastSuccessfulTime on a 2xx. */
export function recordAfterCall(record: CronTriggerStatus, tick: Date, result: TriggerResult): CronTriggerStatus {
  const scheduledTime = rfc3339(tick);
  const ok = invocationSucceeded(result);
  const durationMs = Math.max(0, result.finishedAt.getTime() - result.startedAt.getTime());
  const message = ok ? undefined : result.error ?? `answered ${result.status}`;
  const runs = (record.runs ?? []).map((r) =>
    r.scheduledTime === scheduledTime && r.outcome === 'Running'
      ? withoutUndefined<CronRun>({ ...r, outcome: ok ? 'Succeeded' : 'Failed', finishedTime: rfc3339(result.finishedAt), durationMs, statusCode: result.status, message })
      : r,
  );
  return withoutUndefined({ ...record, runs, lastSuccessfulTime: ok ? later(record.lastSuccessfulTime, scheduledTime) : record.lastSuccessfulTime });
}

/**
 * Runs still Running although no call can be: the operator that sent it stopped (a failover),
 * and the Function's timeout has passed since. They become Failed, so the history does not show
 * a call running forever and Forbid does not wait on it. Undefined when none.
 */
export function recordWithoutAbandoned(record: CronTriggerStatus, now: Date, timeoutMs: number, inFlight: (scheduledTime: string) => boolean): CronTriggerStatus | undefined {
  let changed = false;
  const runs = (record.runs ?? []).map((r) => {
    if (r.outcome !== 'Running' || inFlight(r.scheduledTime) || !r.startTime || now.getTime() - Date.parse(r.startTime) <= timeoutMs) return r;
    changed = true;
    return { ...r, outcome: 'Failed' as const, message: 'no outcome recorded: the operator that sent the call stopped before the answer (a failover)' };
  });
  return changed ? { ...record, runs } : undefined;
}

/** Whether a run of the record is still Running within the timeout (another replica's call in flight). */
export function recordedRunning(record: CronTriggerStatus | undefined, now: Date, timeoutMs: number): boolean {
  return (record?.runs ?? []).some((r) => r.outcome === 'Running' && r.startTime !== undefined && now.getTime() - Date.parse(r.startTime) <= timeoutMs);
}

/**
 * The status list with `entry` in place of the entry of its name, in the spec's order (`names`),
 * without entries of triggers the spec no longer has.
 */
export function withEntry(entries: readonly CronTriggerStatus[], entry: CronTriggerStatus | undefined, names: readonly string[]): CronTriggerStatus[] {
  const byName = new Map(entries.map((e) => [e.name, e]));
  if (entry) byName.set(entry.name, entry);
  return names.flatMap((n) => byName.get(n) ?? []);
}

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
