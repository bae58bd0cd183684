/**
 * What one cron trigger does now (docs/triggers.md "Cron"), decided from the trigger's spec and
 * the record its status keeps, with time as an input: pure, so every rule below is tested with a
 * fake clock (plan-cron-tick.test.ts).
 *
 * - A tick is due when it lies after the record's reference point, `max(since, lastScheduleTime)`:
 *   a tick written as lastScheduleTime is never due again, so a new leader reading the record
 *   neither repeats nor skips one.
 * - Of several due ticks only the latest runs (Kubernetes CronJob's catch-up); the others count
 *   as missed. A latest tick found more than startingDeadlineSeconds late is missed too.
 * - concurrencyPolicy Forbid skips a tick while a call of the trigger is still running.
 * - A new trigger, a changed schedule or time zone, and a suspension or resumption start the count
 *   anew at `since = now` (`observe`): ticks from before are never run.
 */
import { type CronSchedule, type CronTrigger, type CronTriggerStatus, parseCronSchedule, ticksBetween } from '@orrery/spec';

export interface CronPlanInput {
  now: Date;
  trigger: CronTrigger;
  /** The trigger's entry in status.triggers.cron, as stored. */
  record: CronTriggerStatus | undefined;
  /** A call of this trigger is still running (on this replica, or recorded as Running by another). */
  active: boolean;
}

interface Next {
  /** The first tick after this decision; undefined while suspended or when the schedule never fires again. */
  next: Date | undefined;
}

export type CronPlan =
  | ({ action: 'observe'; reason: 'first-seen' | 'schedule-changed' | 'suspended' | 'resumed'; since: Date } & Next)
  | ({ action: 'wait'; reason: 'not-due' | 'suspended' } & Next)
  | ({ action: 'run'; reason: 'due' | 'caught-up'; tick: Date; missed: number } & Next)
  | ({ action: 'skip'; reason: 'forbid-active'; tick: Date; missed: number } & Next)
  | ({ action: 'miss'; reason: 'deadline-passed'; tick: Date; missed: number; lateMs: number } & Next)
  | { action: 'broken'; problem: string };

/** Parsed schedules by expression and zone: parsing costs more than a tick computation, and a schedule is planned every pass. */
const parsedSchedules = new Map<string, CronSchedule>();
function scheduleOf(schedule: string, timeZone: string | undefined): CronSchedule {
  const key = `${schedule}\u0000${timeZone ?? ''}`;
  let parsed = parsedSchedules.get(key);
  if (!parsed) {
    parsed = parseCronSchedule(schedule, timeZone);
    if (parsedSchedules.size >= 1024) parsedSchedules.delete(parsedSchedules.keys().next().value!);
    parsedSchedules.set(key, parsed);
  }
  return parsed;
}

/** The trigger's time zone as the record writes it (absent = UTC). */
const zoneOf = (tz: string | undefined) => tz || 'UTC';

export function planCronTick({ now, trigger, record, active }: CronPlanInput): CronPlan {
  let schedule: CronSchedule;
  try {
    schedule = scheduleOf(trigger.schedule, trigger.timeZone);
    schedule.next(now); // an unknown time zone throws only here
  } catch (err) {
    return { action: 'broken', problem: `schedule ${JSON.stringify(trigger.schedule)} in ${zoneOf(trigger.timeZone)} cannot be read: ${String((err as Error).message)}`.slice(0, 512) };
  }

  const changed = observedChange(trigger, record);
  if (changed) {
    return { action: 'observe', reason: changed, since: now, next: trigger.suspend ? undefined : schedule.next(now) };
  }
  if (trigger.suspend) return { action: 'wait', reason: 'suspended', next: undefined };

  const since = Date.parse(record!.since!);
  const last = record!.lastScheduleTime ? Date.parse(record!.lastScheduleTime) : Number.NEGATIVE_INFINITY;
  const reference = new Date(Math.max(since, last));
  const due = ticksBetween(schedule, reference, now);
  if (!due.latest) return { action: 'wait', reason: 'not-due', next: schedule.next(reference) };

  const tick = due.latest;
  const next = schedule.next(tick);
  const lateMs = now.getTime() - tick.getTime();
  if (trigger.startingDeadlineSeconds !== undefined && lateMs > trigger.startingDeadlineSeconds * 1000) {
    return { action: 'miss', reason: 'deadline-passed', tick, missed: due.count, lateMs, next };
  }
  if (trigger.concurrencyPolicy === 'Forbid' && active) return { action: 'skip', reason: 'forbid-active', tick, missed: due.count - 1, next };
  return { action: 'run', reason: due.count > 1 ? 'caught-up' : 'due', tick, missed: due.count - 1, next };
}

/** Why the record no longer describes the trigger as specified, or undefined when it does. */
function observedChange(trigger: CronTrigger, record: CronTriggerStatus | undefined): Extract<CronPlan, { action: 'observe' }>['reason'] | undefined {
  if (!record?.since || Number.isNaN(Date.parse(record.since))) return 'first-seen';
  if (record.schedule !== trigger.schedule || zoneOf(record.timeZone) !== zoneOf(trigger.timeZone)) return 'schedule-changed';
  if (Boolean(record.suspended) !== trigger.suspend) return trigger.suspend ? 'suspended' : 'resumed';
  return undefined;
}
