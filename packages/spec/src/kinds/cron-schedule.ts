/**
 * A cron trigger's schedule read as time (docs/triggers.md "Cron"): croner does the calendar
 * arithmetic, time zones and daylight-saving transitions included. Shared by validation (a
 * schedule that does not parse or never fires is refused) and the operator's tick planner, so
 * both read an expression the same way.
 *
 * The grammar is the standard five fields (minute hour day-of-month month day-of-week, as in
 * Kubernetes CronJobs: `*`, lists, ranges, `*∕n` and `a-b∕n` steps, month and day names, `?`
 * for a day field, day-of-month OR day-of-week when both are restricted) and the nicknames
 * @yearly @annually @monthly @weekly @daily @midnight @hourly. A sixth, leading field lists
 * explicit seconds (at most six, e.g. `0,30 * * * * *`): for schedules under a minute, bounded
 * because every run writes the Function's status twice.
 */
import { Cron } from 'croner';

/** A tick of a schedule never computed past this many iterations (a catch-up after a long outage counts at most this many). */
export const MAX_TICKS_COUNTED = 1000;

/** The nicknames croner and Kubernetes both read. @reboot has no meaning for a platform that never reboots as a whole. */
export const CRON_NICKNAMES = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'] as const;

export interface CronSchedule {
  /** The first tick strictly after `after`; undefined when the schedule never fires again. */
  next(after: Date): Date | undefined;
}

/** Throws croner's message when the expression or the time zone is not valid. */
export function parseCronSchedule(schedule: string, timeZone?: string): CronSchedule {
  const cron = new Cron(schedule.trim(), { paused: true, mode: '5-or-6-parts', timezone: timeZone || 'UTC' });
  return {
    next: (after) => {
      // croner strips milliseconds and reads `after` as exclusive only at whole seconds.
      const from = new Date(Math.floor(after.getTime() / 1000) * 1000);
      return cron.nextRun(from) ?? undefined;
    },
  };
}

/** Whether `timeZone` is an IANA zone name this runtime knows (Intl: the same table croner uses). */
export function knownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Why a schedule cannot be used (croner's words), or undefined. Never fires = unusable too. */
export function cronScheduleProblem(schedule: string, timeZone?: string): string | undefined {
  let parsed: CronSchedule;
  try {
    parsed = parseCronSchedule(schedule, timeZone && knownTimeZone(timeZone) ? timeZone : undefined);
  } catch (err) {
    return String((err as Error).message).replace(/^CronPattern:\s*/, '');
  }
  // A fixed reference keeps the verdict the same on every machine and every day.
  if (!parsed.next(new Date(Date.UTC(2000, 0, 1)))) return 'it never fires (e.g. 30 February)';
  return undefined;
}

/**
 * The ticks in (after, upTo]: how many there are (at most MAX_TICKS_COUNTED are counted) and
 * the latest, which is what a catch-up runs.
 */
export function ticksBetween(schedule: CronSchedule, after: Date, upTo: Date): { count: number; latest?: Date; capped: boolean } {
  let count = 0;
  let latest: Date | undefined;
  for (let t = schedule.next(after); t && t.getTime() <= upTo.getTime(); t = schedule.next(t)) {
    count++;
    latest = t;
    if (count >= MAX_TICKS_COUNTED) return { count, latest: latestUpTo(schedule, after, upTo), capped: true };
  }
  return { count, latest, capped: false };
}

/**
 * The latest tick in (after, upTo], found from windows before upTo that double until one holds a
 * tick: the half before it held none, so the walk through it is short whatever the outage.
 */
function latestUpTo(schedule: CronSchedule, after: Date, upTo: Date): Date | undefined {
  for (let span = 1000; ; span *= 2) {
    const from = new Date(Math.max(after.getTime(), upTo.getTime() - span));
    let best: Date | undefined;
    for (let t = schedule.next(from); t && t.getTime() <= upTo.getTime(); t = schedule.next(t)) best = t;
    if (best || from.getTime() === after.getTime()) return best;
  }
}
